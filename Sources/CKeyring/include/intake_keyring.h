#ifndef INTAKE_KEYRING_H
#define INTAKE_KEYRING_H

#include <stddef.h>

/// The Linux kernel's key retention service (keyrings(7)), as ssh-agent and gpg-agent use it:
/// secrets held in kernel memory, never written to disk, readable by the processes that possess
/// the keyring, gone after their timeout. Each returns -1 with errno set on failure (ENOSYS where
/// there is no such service).
///
/// A key is kept in the session keyring when the process has a live one of its own, else in the
/// user's session keyring (_uid_ses: no session keyring, or one revoked when the login that made
/// it ended, as in a tmux or screen that outlived it); it is looked for in both, so the next
/// command of the same user finds it whichever of those it runs with.

/// Adds (or replaces) a "user" key described `description`; its serial.
long intake_keyring_add(const char *description, const void *payload, size_t length);
/// The serial of the key described `description` in the session keyring, else in the user's
/// session keyring; or -1.
long intake_keyring_search(const char *description);
/// Reads a key into `buffer`; the key's length.
long intake_keyring_read(long key, void *buffer, size_t length);
/// Expires the key `seconds` from now.
long intake_keyring_set_timeout(long key, unsigned seconds);
/// Removes the key at once.
long intake_keyring_invalidate(long key);
/// Removes at once every key described `description` that search finds (session keyring and
/// user's session keyring); how many.
long intake_keyring_forget(const char *description);

#endif
