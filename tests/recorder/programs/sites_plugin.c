/* An instrumented plugin that sites_main loads with dlopen() after recording started. */
int plugin_global;

void plugin_touch(void) { plugin_global = 3; }
