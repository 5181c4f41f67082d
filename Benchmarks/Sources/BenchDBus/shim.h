#ifndef GROUPVAULT_BENCH_DBUS_SHIM_H
#define GROUPVAULT_BENCH_DBUS_SHIM_H
// The system libdbus-1, for the D-Bus peer of the notification figure (NotificationPeers).
#include <dbus/dbus.h>
#endif
