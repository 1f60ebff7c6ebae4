package io.rdmakv.server.session;

import io.rdmakv.protocol.auth.Role;
import io.rdmakv.protocol.auth.ScramCredential;
import io.rdmakv.protocol.auth.User;
import io.rdmakv.protocol.auth.UsersFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What revokes a live session: its user removed from the users file, or its entry changed (password, role,
 * prefixes); an unchanged user, another user's change, and the shared secret's or an open node's sessions are not
 * revoked. The generation moves exactly when a changed file was loaded, so the request thread looks at its sessions
 * only then.
 */
class UsersDirectoryRevocationTest
{
    @TempDir
    Path tmp;

    private static User user(final String name, final Role role, final String password, final String... prefixes)
    {
        return new User(name, role, List.of(prefixes),
            ScramCredential.derive(password.toCharArray(), new byte[16], 4096));
    }

    @Test
    void shouldRevokeTheSessionsOfARemovedOrChangedUserOnly() throws Exception
    {
        final Path file = tmp.resolve("users");
        final User alice = user("alice", Role.READ, "a-pw");
        final User bob = user("bob", Role.READWRITE, "b-pw", "app:");
        final User carol = user("carol", Role.READ, "c-pw");
        UsersFile.write(file, List.of(alice, bob, carol));
        final UsersDirectory users = new UsersDirectory(file);
        final Access aliceSession = Access.of(users.user("alice"));
        final Access bobSession = Access.of(users.user("bob"));
        final Access carolSession = Access.of(users.user("carol"));
        final long start = users.generation();
        assertEquals(start, users.generation(), "nothing changed: the same generation");
        assertNull(users.revocation(aliceSession));
        assertNull(users.revocation(Access.SHARED_SECRET));
        assertNull(users.revocation(Access.OPEN));

        UsersFile.remove(file, "alice");
        UsersFile.put(file, user("bob", Role.READ, "b-pw", "app:")); // bob's role changed
        UsersFile.put(file, user("dave", Role.READ, "d-pw"));        // someone else added
        final long changed = users.generation();
        assertNotEquals(start, changed, "a changed file moves the generation");
        assertTrue(users.revocation(aliceSession).contains("removed"), users.revocation(aliceSession));
        assertTrue(users.revocation(bobSession).contains("changed"), users.revocation(bobSession));
        assertNull(users.revocation(carolSession), "carol's entry is the same: her session holds");
        assertNull(users.revocation(Access.SHARED_SECRET));
        assertEquals(changed, users.generation());

        UsersFile.put(file, user("carol", Role.READ, "a-new-pw"));
        assertTrue(users.revocation(carolSession).contains("changed"), "a new password revokes too");
        assertNull(users.revocation(Access.of(users.user("carol"))), "a session of the new entry holds");
    }
}
