// Naming a descriptor's channel takes one fstat, and for a socket its type and addresses (one to
// three more system calls); nothing is cached, so a reused descriptor number is never misnamed.
#include "recorder/fd_channel_key.h"

#include <netinet/in.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <algorithm>
#include <cstddef>

namespace pecan::rt {
namespace {

// What a key names, hashed in first so that kinds of channels never share a key.
enum class ChannelKind : uint64_t {
  kFile = 1,         // pipe, FIFO, regular file, device, eventfd: (st_dev, st_ino)
  kConnection = 2,   // connected stream socket: {own address, peer address}, unordered
  kDatagramTo = 3,   // datagram socket: the receiving address
  kListening = 4,    // connect -> accept: the listening address
  kUnknownPeer = 5,  // an address that could not be found
  kInetAddress = 6,  // AF_INET and AF_INET6 alike
};

constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;
constexpr uint64_t kFnvPrime = 0x100000001b3ull;

uint64_t MixBytes(uint64_t hash, const void* data, size_t length) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < length; ++i) hash = (hash ^ bytes[i]) * kFnvPrime;
  return hash;
}

uint64_t Mix(uint64_t hash, uint64_t value) {
  return MixBytes(hash, &value, sizeof value);
}

uint64_t Start(ChannelKind kind) {
  return Mix(kFnvOffset, static_cast<uint64_t>(kind));
}

// A final avalanche (splitmix64's), then the tag.
uint64_t Finish(uint64_t hash) {
  hash ^= hash >> 30;
  hash *= 0xbf58476d1ce4e5b9ull;
  hash ^= hash >> 27;
  hash *= 0x94d049bb133111ebull;
  hash ^= hash >> 31;
  return hash | kFdChannelKeyTag;
}

// A socket address as the keys see it. Over-approximations: an internet address is its port
// alone (the IP is ignored, and IPv4 and IPv6 are one family, so a dual-stack listener matches
// a client of either), so channels on one port of different hosts or interfaces share names;
// every unnamed Unix socket (socketpair, an unbound client) has the same, empty, name.
uint64_t AddressHash(const sockaddr* address, socklen_t length) {
  if (address == nullptr || length < socklen_t(sizeof(sa_family_t)))
    return Start(ChannelKind::kUnknownPeer);
  sa_family_t family;
  memcpy(&family, address, sizeof family);
  const auto* bytes = reinterpret_cast<const char*>(address);
  switch (family) {
    case AF_INET:
    case AF_INET6: {
      static_assert(offsetof(sockaddr_in, sin_port) == offsetof(sockaddr_in6, sin6_port));
      constexpr size_t kPortEnd = offsetof(sockaddr_in, sin_port) + sizeof(in_port_t);
      in_port_t port = 0;
      if (size_t(length) >= kPortEnd)
        memcpy(&port, bytes + offsetof(sockaddr_in, sin_port), sizeof port);
      return Mix(Start(ChannelKind::kInetAddress), port);
    }
    case AF_UNIX: {
      // A path as spelled at bind and connect ("sock" and "./sock" differ); an abstract name
      // (leading NUL) by all its bytes; a path without the NULs that may pad it.
      constexpr size_t kPathOffset = offsetof(sockaddr_un, sun_path);
      const char* path = bytes + kPathOffset;
      size_t path_length = size_t(length) > kPathOffset ? std::min(size_t(length) - kPathOffset,
                                                                   sizeof(sockaddr_un::sun_path))
                                                        : 0;
      if (path_length > 0 && path[0] != '\0') path_length = strnlen(path, path_length);
      return MixBytes(Mix(kFnvOffset, AF_UNIX), path, path_length);
    }
    default:
      return MixBytes(Mix(kFnvOffset, family), bytes + sizeof family,
                      size_t(length) - sizeof family);
  }
}

uint64_t FileKey(const struct stat& status) {
  // Over-approximation: every file of the kernel's anonymous inode (eventfd, timerfd, signalfd,
  // epoll) has the same (st_dev, st_ino), so they are one channel. A regular file is one
  // channel whatever the offsets written and read.
  return Finish(Mix(Mix(Start(ChannelKind::kFile), status.st_dev), status.st_ino));
}

bool MayBlock(const struct stat& status) {
  return !S_ISREG(status.st_mode) && !S_ISDIR(status.st_mode) && !S_ISBLK(status.st_mode);
}

bool IsDatagramSocket(int fd) {
  int type = 0;
  socklen_t length = sizeof type;
  return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 && type == SOCK_DGRAM;
}

uint64_t OwnAddressHash(int fd) {
  sockaddr_storage address;
  socklen_t length = sizeof address;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    return Start(ChannelKind::kUnknownPeer);
  return AddressHash(reinterpret_cast<const sockaddr*>(&address),
                     std::min(length, socklen_t(sizeof address)));
}

uint64_t PeerAddressHash(int fd) {
  sockaddr_storage address;
  socklen_t length = sizeof address;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    return Start(ChannelKind::kUnknownPeer);
  return AddressHash(reinterpret_cast<const sockaddr*>(&address),
                     std::min(length, socklen_t(sizeof address)));
}

// Both directions of a connection are one channel, named the same from both ends.
uint64_t ConnectionKey(int fd) {
  const uint64_t own = OwnAddressHash(fd);
  const uint64_t peer = PeerAddressHash(fd);
  return Finish(
      Mix(Mix(Start(ChannelKind::kConnection), std::min(own, peer)), std::max(own, peer)));
}

uint64_t DatagramKey(uint64_t receiving_address_hash) {
  return Finish(Mix(Start(ChannelKind::kDatagramTo), receiving_address_hash));
}

}  // namespace

FdChannel SendChannel(int fd, const sockaddr* destination, socklen_t destination_length) {
  struct stat status;
  if (fstat(fd, &status) != 0) return {};
  if (!S_ISSOCK(status.st_mode)) return {FileKey(status), MayBlock(status)};
  if (!IsDatagramSocket(fd)) return {ConnectionKey(fd), true};
  // A datagram goes to sendto's address, else to the connected peer: the receiver's own address.
  if (destination != nullptr)
    return {DatagramKey(AddressHash(destination, destination_length)), true};
  return {DatagramKey(PeerAddressHash(fd)), true};
}

FdChannel ReceiveChannel(int fd) {
  struct stat status;
  if (fstat(fd, &status) != 0) return {};
  if (!S_ISSOCK(status.st_mode)) return {FileKey(status), MayBlock(status)};
  if (!IsDatagramSocket(fd)) return {ConnectionKey(fd), true};
  return {DatagramKey(OwnAddressHash(fd)), true};
}

uint64_t ConnectKey(const sockaddr* address, socklen_t length) {
  return Finish(Mix(Start(ChannelKind::kListening), AddressHash(address, length)));
}

uint64_t ListeningKey(int listening_fd) {
  return Finish(Mix(Start(ChannelKind::kListening), OwnAddressHash(listening_fd)));
}

}  // namespace pecan::rt
