/* An instrumented shared library linked into sites_main: its accesses must be attributed to
   this module, not to the executable. */
int lib_global;

void lib_touch(int* target) {
  lib_global = 1;
  *target = 2;
}
