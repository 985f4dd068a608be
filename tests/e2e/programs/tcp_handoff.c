// Two hand-offs over TCP loopback: the worker sets `greeting`, connects to main's listening
// socket, sets `payload` and sends one byte; main accepts, reads `greeting`, receives the byte,
// then reads and writes `payload`. connect -> accept orders `greeting`, send -> recv `payload`:
// no race on either.
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

static struct sockaddr_in address;
static int greeting, payload;

static void* worker(void* arg) {
  (void)arg;
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  greeting = 7; /* before connect */
  if (fd < 0 || connect(fd, (const struct sockaddr*)&address, sizeof address) != 0) return NULL;
  payload = 41; /* before send */
  const char byte = 1;
  if (send(fd, &byte, 1, 0) != 1) return NULL;
  close(fd);
  return NULL;
}

int main(void) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0; /* any free port */
  socklen_t length = sizeof address;
  if (listener < 0 || bind(listener, (const struct sockaddr*)&address, sizeof address) != 0 ||
      listen(listener, 1) != 0 ||
      getsockname(listener, (struct sockaddr*)&address, &length) != 0)
    return 1;
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  const int connection = accept(listener, NULL, NULL);
  if (connection < 0) return 1;
  const int seen = greeting; /* after accept, before recv */
  char byte;
  if (recv(connection, &byte, 1, 0) != 1) return 1;
  payload = payload + seen; /* after recv */
  pthread_join(thread, NULL);
  printf("payload %d\n", payload);
  close(connection);
  close(listener);
  return 0;
}
