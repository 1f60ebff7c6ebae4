package io.rdmakv.protocol.auth;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UsersFileTest
{
    private static final SecureRandom RANDOM = new SecureRandom();

    private static User user(final String name, final Role role, final List<String> prefixes, final String password)
    {
        return new User(name, role, prefixes, ScramCredential.create(password.toCharArray(), 4096, RANDOM));
    }

    @Test
    void shouldWriteReadableOnlyByItsOwnerAndReadBack(@TempDir final Path dir) throws Exception
    {
        final Path file = dir.resolve("users");
        assertFalse(UsersFile.put(file, user("alice", Role.READWRITE, List.of("app:", "cache:"), "wonderland")));
        assertFalse(UsersFile.put(file, user("ops", Role.ADMIN, List.of(), "s3cret")));
        assertTrue(UsersFile.put(file, user("alice", Role.READ, List.of("app:"), "looking-glass")));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));

        final Map<String, User> users = UsersFile.read(file);
        assertEquals(List.of("alice", "ops"), List.copyOf(users.keySet()));
        assertEquals(Role.READ, users.get("alice").role());
        assertEquals(List.of("app:"), users.get("alice").prefixes());
        assertTrue(users.get("alice").credential().matches("looking-glass".toCharArray()));
        assertFalse(users.get("alice").credential().matches("wonderland".toCharArray()));
        assertTrue(users.get("ops").allKeys());
        final String text = Files.readString(file);
        assertFalse(text.contains("looking-glass") || text.contains("s3cret"), "no password in the file");
        assertTrue(UsersFile.remove(file, "alice"));
        assertEquals(List.of("ops"), List.copyOf(UsersFile.read(file).keySet()));
    }

    @Test
    void shouldRefuseAMalformedLineNamingItsNumber()
    {
        final String good = UsersFile.line(user("bob", Role.READ, List.of(), "pw"));
        assertEquals(1, UsersFile.parse("# comment\n\n" + good + "\n").size());
        final IllegalArgumentException roleError = assertThrows(IllegalArgumentException.class,
            () -> UsersFile.parse(good + "\n" + good.replace(" read ", " root ").replace("bob", "eve")));
        assertTrue(roleError.getMessage().startsWith("users file line 2: unknown role 'root'"), roleError.getMessage());
        assertThrows(IllegalArgumentException.class, () -> UsersFile.parse(good + "\n" + good)); // twice
        assertThrows(IllegalArgumentException.class, () -> UsersFile.parse("bob read * SCRAM-SHA-256$10:AA==$x:y"));
        assertThrows(IllegalArgumentException.class, () -> UsersFile.parse("b b read * x"));
        assertThrows(IllegalArgumentException.class, () -> Role.parse("ADMIN"));
    }

    @Test
    void shouldLimitKeysToThePrefixes()
    {
        final byte[][] prefixes = user("p", Role.READWRITE, List.of("app:", "c"), "x").prefixBytes();
        assertTrue(covers(prefixes, "app:1"));
        assertTrue(covers(prefixes, "cache"));
        assertFalse(covers(prefixes, "ap"));
        assertFalse(covers(prefixes, "other"));
        assertTrue(covers(new byte[0][], "anything"));
        assertTrue(Role.ADMIN.includes(Role.READWRITE) && Role.READWRITE.includes(Role.READ));
        assertFalse(Role.READ.includes(Role.READWRITE));
    }

    private static boolean covers(final byte[][] prefixes, final String key)
    {
        final byte[] bytes = ("xx" + key).getBytes(StandardCharsets.UTF_8);
        return User.covers(prefixes, new UnsafeBuffer(bytes), 2, bytes.length - 2);
    }
}
