#include "intake_keyring.h"

#include <errno.h>

#ifdef __linux__
#include <sys/syscall.h>
#include <unistd.h>

#define INTAKE_KEY_SPEC_THREAD_KEYRING (-1)
#define INTAKE_KEY_SPEC_SESSION_KEYRING (-3)
#define INTAKE_KEY_SPEC_USER_SESSION_KEYRING (-5)
#define INTAKE_KEYCTL_GET_KEYRING_ID 0
#define INTAKE_KEYCTL_LINK 8
#define INTAKE_KEYCTL_SEARCH 10
#define INTAKE_KEYCTL_READ 11
#define INTAKE_KEYCTL_SET_TIMEOUT 15
#define INTAKE_KEYCTL_INVALIDATE 21

// Where the key goes. A process with a session keyring of its own (pam_keyinit, `keyctl session`)
// keeps it there, for that login session only. Without one (a container, a desktop without
// pam_keyinit), or when its session keyring is dead (pam_keyinit's `revoke` revokes it when the
// login that made it ends, while a tmux or screen started from that login runs on with it in
// every window), the key goes to the user's session keyring (_uid_ses), which every process of
// this user reaches (KEY_SPEC_USER_SESSION_KEYRING); so search looks in both places.
//
// The kernel lets a process read a key, renew its timeout or invalidate it by serial only if the
// key is permitted to its user (a "user" key permits only "view") or if it possesses the key:
// reaches it from its thread, process or session keyring, or from _uid_ses only when it has no
// session keyring at all. A process whose session keyring is another one, or a revoked one, could
// find a key in _uid_ses by searching it (KEYCTL_SEARCH of -5 says found) and still be refused
// (EACCES) when reading it, renewing it or invalidating it; the one that put it there could not
// even set its timeout. So each call first links _uid_ses into this thread's own keyring (made
// on demand, private to the thread, gone with it; children and other threads do not inherit it):
// the thread then possesses what it could reach anyway through KEY_SPEC_USER_SESSION_KEYRING,
// nothing of another user's or another login's session keyring, and the shared keyrings are left
// as they were. Credentials, and so keyrings, are per thread in Linux: each call does it again
// (cheaply: linking what is linked already changes nothing).
static void possess_user_session(void) {
    int saved = errno;
    // Asking for the session keyring without creating one (0) never makes a new anonymous one
    // (which would die with this process): with none, the kernel makes _uid_ses this thread's.
    long session = syscall(SYS_keyctl, INTAKE_KEYCTL_GET_KEYRING_ID, INTAKE_KEY_SPEC_SESSION_KEYRING, 0);
    long user_session = syscall(SYS_keyctl, INTAKE_KEYCTL_GET_KEYRING_ID, INTAKE_KEY_SPEC_USER_SESSION_KEYRING, 0);
    if (user_session > 0 && session != user_session)
        (void)syscall(SYS_keyctl, INTAKE_KEYCTL_LINK, INTAKE_KEY_SPEC_USER_SESSION_KEYRING, INTAKE_KEY_SPEC_THREAD_KEYRING);
    errno = saved;
}

long intake_keyring_add(const char *description, const void *payload, size_t length) {
    possess_user_session();
    // The session keyring when it is a live one of its own (adding to -3 when it is _uid_ses
    // would make a new anonymous session keyring that dies with this process); else _uid_ses.
    long session = syscall(SYS_keyctl, INTAKE_KEYCTL_GET_KEYRING_ID, INTAKE_KEY_SPEC_SESSION_KEYRING, 0);
    long user_session = syscall(SYS_keyctl, INTAKE_KEYCTL_GET_KEYRING_ID, INTAKE_KEY_SPEC_USER_SESSION_KEYRING, 0);
    int keyring = session > 0 && session != user_session ? INTAKE_KEY_SPEC_SESSION_KEYRING : INTAKE_KEY_SPEC_USER_SESSION_KEYRING;
    return syscall(SYS_add_key, "user", description, payload, length, keyring);
}

long intake_keyring_search(const char *description) {
    possess_user_session();
    long key = syscall(SYS_keyctl, INTAKE_KEYCTL_SEARCH, INTAKE_KEY_SPEC_SESSION_KEYRING, "user", description, 0);
    if (key > 0) return key;
    return syscall(SYS_keyctl, INTAKE_KEYCTL_SEARCH, INTAKE_KEY_SPEC_USER_SESSION_KEYRING, "user", description, 0);
}

long intake_keyring_read(long key, void *buffer, size_t length) {
    possess_user_session();
    return syscall(SYS_keyctl, INTAKE_KEYCTL_READ, key, buffer, length);
}

long intake_keyring_set_timeout(long key, unsigned seconds) {
    possess_user_session();
    return syscall(SYS_keyctl, INTAKE_KEYCTL_SET_TIMEOUT, key, seconds);
}

long intake_keyring_invalidate(long key) {
    possess_user_session();
    return syscall(SYS_keyctl, INTAKE_KEYCTL_INVALIDATE, key);
}

long intake_keyring_forget(const char *description) {
    // An invalidated key is found no more, so this ends; the bound is only a safety net.
    long forgotten = 0;
    for (int i = 0; i < 16; i++) {
        long key = intake_keyring_search(description);
        if (key <= 0) break;
        if (intake_keyring_invalidate(key) != 0) return forgotten > 0 ? forgotten : -1;
        forgotten++;
    }
    return forgotten;
}

#else

long intake_keyring_add(const char *description, const void *payload, size_t length) { errno = ENOSYS; return -1; }
long intake_keyring_search(const char *description) { errno = ENOSYS; return -1; }
long intake_keyring_read(long key, void *buffer, size_t length) { errno = ENOSYS; return -1; }
long intake_keyring_set_timeout(long key, unsigned seconds) { errno = ENOSYS; return -1; }
long intake_keyring_invalidate(long key) { errno = ENOSYS; return -1; }
long intake_keyring_forget(const char *description) { errno = ENOSYS; return -1; }

#endif
