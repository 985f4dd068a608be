// A plain program that dlopen()s the library named by its first argument (the instrumented
// libcounting, as a plugin) and calls counting_run from it. Exits 0 with the count, 3 if the
// library cannot be loaded.
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
  void* plugin = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
  long (*run)(void) = plugin != NULL ? (long (*)(void))dlsym(plugin, "counting_run") : NULL;
  if (run == NULL) {
    fprintf(stderr, "cannot load %s: %s\n", argc > 1 ? argv[1] : "(none)", dlerror());
    return 3;
  }
  printf("counted %ld\n", run());
  return 0;
}
