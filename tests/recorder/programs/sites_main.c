/* Sites across modules: writes from the executable, from a linked shared library and from a
   plugin loaded later with dlopen(). argv[1] = path of the plugin. Prints the functions'
   addresses so the test can check each event's site lies inside the right function. */
#include <dlfcn.h>
#include <stdio.h>

extern int lib_global;
void lib_touch(int* target);

int main_global;

__attribute__((noinline)) void main_touch(void) { main_global = 4; }

int main(int argc, char** argv) {
  if (argc < 2) return 100;
  main_touch();
  lib_touch(&main_global);
  void* plugin = dlopen(argv[1], RTLD_NOW);
  if (plugin == NULL) {
    fprintf(stderr, "%s\n", dlerror());
    return 101;
  }
  void (*plugin_touch)(void) = (void (*)(void))dlsym(plugin, "plugin_touch");
  int* plugin_global = (int*)dlsym(plugin, "plugin_global");
  plugin_touch();
  printf("main_touch %p\n", (void*)main_touch);
  printf("lib_touch %p\n", (void*)lib_touch);
  printf("plugin_touch %p\n", (void*)plugin_touch);
  printf("main_global %p\n", (void*)&main_global);
  printf("lib_global %p\n", (void*)&lib_global);
  printf("plugin_global %p\n", (void*)plugin_global);
  return 0;
}
