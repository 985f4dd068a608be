// A race through a write(2) buffer: the worker fills `message` while main writes it to
// /dev/null, with nothing between them. The kernel reads the buffer inside write, so the fill
// and the write call race (pecan must predict it, at the write call's line).
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static char message[64];

static void* worker(void* arg) {
  (void)arg;
  for (unsigned i = 0; i < sizeof message; i++) message[i] = 'a'; /* BUG: fills unordered */
  return NULL;
}

int main(void) {
  const int fd = open("/dev/null", O_WRONLY);
  if (fd < 0) return 1;
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  if (write(fd, message, sizeof message) < 0) return 1; /* BUG: reads message unordered */
  pthread_join(thread, NULL);
  close(fd);
  printf("written\n");
  return 0;
}
