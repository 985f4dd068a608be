// Conversions between trace.h types and trace.proto messages. Text from the program (paths,
// thread names, arguments) goes through ValidUtf8: protobuf refuses to parse a string field that
// is not UTF-8, so one stray byte would make the whole trace unreadable.
#include "trace_format/proto_conversion.h"

#include "trace_format/error.h"
#include "trace_format/utf8_text.h"

namespace pecan {

proto::ThreadInfo ThreadToProto(ThreadId id, const ThreadInfo& info) {
  proto::ThreadInfo p;
  p.set_id(id);
  if (info.parent) p.set_parent(*info.parent);
  p.set_ordinal(info.ordinal);
  p.set_name(ValidUtf8(info.name));
  return p;
}

proto::Site SiteToProto(SiteId id, const SiteInfo& info) {
  proto::Site p;
  p.set_id(id);
  p.set_module(info.module);
  p.set_offset(info.offset);
  return p;
}

proto::Module ModuleToProto(const ModuleInfo& module) {
  proto::Module p;
  p.set_id(module.id);
  p.set_path(ValidUtf8(module.path));
  p.set_load_address(module.load_address);
  p.set_build_id(module.build_id);
  return p;
}

proto::AddressName NameToProto(const AddressName& name) {
  proto::AddressName p;
  p.set_address(name.address);
  p.set_size(name.size);
  p.set_name(ValidUtf8(name.name));
  return p;
}

ModuleInfo ModuleFromProto(const proto::Module& module) {
  return ModuleInfo{module.id(), module.path(), module.load_address(), module.build_id()};
}

AddressName NameFromProto(const proto::AddressName& name) {
  return AddressName{name.address(), name.size(), name.name()};
}

proto::BlockedThread BlockedToProto(const BlockedThreadInfo& blocked) {
  proto::BlockedThread p;
  p.set_thread(blocked.thread);
  p.set_on(static_cast<proto::BlockedOn>(blocked.on));
  p.set_object(blocked.object);
  p.set_site(blocked.site);
  for (const LockHolderInfo& holder : blocked.holders) {
    proto::LockHolder* h = p.add_holders();
    h->set_thread(holder.thread);
    h->set_site(holder.site);
    h->set_shared(holder.shared);
  }
  return p;
}

BlockedThreadInfo BlockedFromProto(const proto::BlockedThread& blocked, const TraceTables& tables,
                                   const std::string& where) {
  auto check = [&](uint64_t id, size_t table_size, const char* what) {
    if (id >= table_size)
      throw PecanError(where + ": blocked thread names " + what + " " + std::to_string(id) +
                       ", which the trace does not have");
  };
  BlockedThreadInfo info;
  check(blocked.thread(), tables.threads.size(), "thread");
  check(blocked.site(), tables.sites.size(), "site");
  info.thread = blocked.thread();
  info.site = blocked.site();
  // A kind from a newer minor version reads as unspecified (a wait this pecan cannot name).
  const int on = static_cast<int>(blocked.on());
  info.on = on >= 0 && on <= static_cast<int>(kLastBlockedOn) ? static_cast<BlockedOn>(on)
                                                              : BlockedOn::kUnspecified;
  info.object = blocked.object();
  if (info.on == BlockedOn::kJoin && info.object != kUnknownJoinedThread)
    check(info.object, tables.threads.size(), "joined thread");
  for (const proto::LockHolder& holder : blocked.holders()) {
    check(holder.thread(), tables.threads.size(), "thread");
    check(holder.site(), tables.sites.size(), "site");
    info.holders.push_back(LockHolderInfo{holder.thread(), holder.site(), holder.shared()});
  }
  return info;
}

proto::TraceHeader HeaderFromMeta(const TraceMeta& meta) {
  proto::TraceHeader h;
  h.set_format_major(meta.format_major);
  h.set_format_minor(meta.format_minor);
  h.set_producer(ValidUtf8(meta.producer));
  h.set_program(ValidUtf8(meta.program));
  for (const auto& a : meta.args) h.add_args(ValidUtf8(a));
  h.set_pid(meta.pid);
  h.set_start_unix_ns(meta.start_unix_ns);
  auto* s = h.mutable_settings();
  s->set_chunk_events(meta.settings.chunk_events);
  s->set_zstd_level(meta.settings.zstd_level);
  s->set_func_events(meta.settings.func_events);
  s->set_stack_accesses(meta.settings.stack_accesses);
  s->set_fork_policy(ValidUtf8(meta.settings.fork_policy));
  s->set_drop_repeats(meta.settings.drop_repeats);
  return h;
}

void MetaFromHeader(const proto::TraceHeader& header, TraceMeta& meta) {
  meta.format_major = header.format_major();
  meta.format_minor = header.format_minor();
  meta.producer = header.producer();
  meta.program = header.program();
  meta.args.assign(header.args().begin(), header.args().end());
  meta.pid = header.pid();
  meta.start_unix_ns = header.start_unix_ns();
  const auto& s = header.settings();
  meta.settings = RecorderSettingsInfo{s.chunk_events(),   s.zstd_level(),  s.func_events(),
                                       s.stack_accesses(), s.fork_policy(), s.drop_repeats()};
}

void ApplyTableEntries(const google::protobuf::RepeatedPtrField<proto::ThreadInfo>& threads,
                       const google::protobuf::RepeatedPtrField<proto::Site>& sites,
                       const google::protobuf::RepeatedPtrField<proto::Module>& modules,
                       const google::protobuf::RepeatedPtrField<proto::AddressName>& names,
                       TraceTables& tables, const std::string& where) {
  for (const auto& t : threads) {
    if (t.id() > tables.threads.size())
      throw PecanError(where + ": thread id " + std::to_string(t.id()) +
                       " skips ahead of the thread table (size " +
                       std::to_string(tables.threads.size()) + ")");
    ThreadInfo info;
    if (t.has_parent()) info.parent = t.parent();
    info.ordinal = t.ordinal();
    info.name = t.name();
    if (t.id() == tables.threads.size()) {
      tables.threads.push_back(std::move(info));
    } else {
      tables.threads[t.id()] = std::move(info);
    }
  }
  for (const auto& s : sites) {
    if (s.id() > tables.sites.size())
      throw PecanError(where + ": site id " + std::to_string(s.id()) +
                       " skips ahead of the site table (size " +
                       std::to_string(tables.sites.size()) + ")");
    SiteInfo info{s.module(), s.offset()};
    if (s.id() == tables.sites.size()) {
      tables.sites.push_back(info);
    } else {
      tables.sites[s.id()] = info;
    }
  }
  for (const auto& m : modules) tables.modules.push_back(ModuleFromProto(m));
  for (const auto& n : names) tables.names.push_back(NameFromProto(n));
}

}  // namespace pecan
