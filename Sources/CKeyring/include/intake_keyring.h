#ifndef INTAKE_KEYRING_H
#define INTAKE_KEYRING_H

#include <stddef.h>

/// The Linux kernel's key retention service (keyrings(7)), as ssh-agent and gpg-agent use it:
/// secrets held in kernel memory, never written to disk, readable by the processes that possess
/// the keyring, gone after their timeout. Each returns -1 with errno set on failure (ENOSYS where
/// there is no such service).

/// Adds (or replaces) a "user" key described `description` to the session keyring; its serial.
long intake_keyring_add(const char *description, const void *payload, size_t length);
/// The serial of the session keyring's key described `description`, or -1.
long intake_keyring_search(const char *description);
/// Reads a key into `buffer`; the key's length.
long intake_keyring_read(long key, void *buffer, size_t length);
/// Expires the key `seconds` from now.
long intake_keyring_set_timeout(long key, unsigned seconds);
/// Removes the key at once.
long intake_keyring_invalidate(long key);

#endif
