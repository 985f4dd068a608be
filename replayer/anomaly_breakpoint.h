// The function the runtime calls the moment a clip's anomaly forms, so a debugger can stop
// there: `pecan replay --gdb` sets a breakpoint on pecan_anomaly_formed.
#pragma once

extern "C" {
// Does nothing; never inlined or removed. Called on the thread that ran the anomaly's last
// event, right after its hook (the access itself follows when the call returns).
void pecan_anomaly_formed(void);
}
