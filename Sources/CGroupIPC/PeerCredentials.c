#define _GNU_SOURCE
#include "CGroupIPC.h"
#include <errno.h>
#include <sys/socket.h>

int cgroupipc_peer_credentials_of(int fd, cgroupipc_peer_credentials *out) {
#ifdef SO_PEERCRED
    struct ucred credentials;
    socklen_t length = sizeof(credentials);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    if (length != sizeof(credentials)) { errno = EPROTO; return -1; }
    out->pid = credentials.pid;
    out->uid = credentials.uid;
    out->gid = credentials.gid;
    return 0;
#else
    (void)fd; (void)out;
    errno = ENOTSUP;
    return -1;
#endif
}
