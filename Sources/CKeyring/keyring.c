#include "intake_keyring.h"

#include <errno.h>

#ifdef __linux__
#include <sys/syscall.h>
#include <unistd.h>

#define INTAKE_KEY_SPEC_SESSION_KEYRING (-3)
#define INTAKE_KEY_SPEC_USER_SESSION_KEYRING (-5)
#define INTAKE_KEYCTL_GET_KEYRING_ID 0
#define INTAKE_KEYCTL_INVALIDATE 21
#define INTAKE_KEYCTL_SEARCH 10
#define INTAKE_KEYCTL_READ 11
#define INTAKE_KEYCTL_SET_TIMEOUT 15

long intake_keyring_add(const char *description, const void *payload, size_t length) {
    // Without a session keyring of its own (no pam_keyinit: a container, some desktops), a
    // process that adds a key would get a new anonymous one that dies with it. Asking for the
    // session keyring without creating one first makes the user's session keyring this process's
    // session keyring, which the next command of the same user finds.
    long session = syscall(SYS_keyctl, INTAKE_KEYCTL_GET_KEYRING_ID, INTAKE_KEY_SPEC_SESSION_KEYRING, 0);
    long user_session = syscall(SYS_keyctl, INTAKE_KEYCTL_GET_KEYRING_ID, INTAKE_KEY_SPEC_USER_SESSION_KEYRING, 0);
    int keyring = session > 0 && session != user_session ? INTAKE_KEY_SPEC_SESSION_KEYRING : INTAKE_KEY_SPEC_USER_SESSION_KEYRING;
    return syscall(SYS_add_key, "user", description, payload, length, keyring);
}

long intake_keyring_search(const char *description) {
    return syscall(SYS_keyctl, INTAKE_KEYCTL_SEARCH, INTAKE_KEY_SPEC_SESSION_KEYRING, "user", description, 0);
}

long intake_keyring_read(long key, void *buffer, size_t length) {
    return syscall(SYS_keyctl, INTAKE_KEYCTL_READ, key, buffer, length);
}

long intake_keyring_set_timeout(long key, unsigned seconds) {
    return syscall(SYS_keyctl, INTAKE_KEYCTL_SET_TIMEOUT, key, seconds);
}

long intake_keyring_invalidate(long key) {
    return syscall(SYS_keyctl, INTAKE_KEYCTL_INVALIDATE, key);
}

#else

long intake_keyring_add(const char *description, const void *payload, size_t length) { errno = ENOSYS; return -1; }
long intake_keyring_search(const char *description) { errno = ENOSYS; return -1; }
long intake_keyring_read(long key, void *buffer, size_t length) { errno = ENOSYS; return -1; }
long intake_keyring_set_timeout(long key, unsigned seconds) { errno = ENOSYS; return -1; }
long intake_keyring_invalidate(long key) { errno = ENOSYS; return -1; }

#endif
