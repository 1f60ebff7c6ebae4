package io.rdmakv.protocol.auth;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * What is kept of a password: a per-user salt, the iteration count, and SCRAM's StoredKey = H(HMAC(SaltedPassword,
 * "Client Key")) and ServerKey = HMAC(SaltedPassword, "Server Key") (RFC 5802). Neither gives the password back nor
 * lets one log in without it (the StoredKey only checks a proof; the ServerKey only signs the node's answer).
 * Written as {@code SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>} (base64), RFC 5803's form.
 */
public record ScramCredential(int iterations, byte[] salt, byte[] storedKey, byte[] serverKey)
{
    /** Bytes of a fresh salt. */
    public static final int SALT_BYTES = 16;

    public ScramCredential
    {
        if (iterations < ScramSha256.MIN_ITERATIONS || iterations > ScramSha256.MAX_ITERATIONS)
        {
            throw new IllegalArgumentException("iteration count " + iterations + " not in " +
                ScramSha256.MIN_ITERATIONS + ".." + ScramSha256.MAX_ITERATIONS);
        }
        if (salt.length == 0 || storedKey.length != ScramSha256.KEY_BYTES || serverKey.length != ScramSha256.KEY_BYTES)
        {
            throw new IllegalArgumentException("a SCRAM-SHA-256 credential needs a salt and two 32-byte keys");
        }
        salt = salt.clone();
        storedKey = storedKey.clone();
        serverKey = serverKey.clone();
    }

    /** The credential of {@code password} with a fresh random salt. */
    public static ScramCredential create(final char[] password, final int iterations, final SecureRandom random)
    {
        final byte[] salt = new byte[SALT_BYTES];
        random.nextBytes(salt);
        return derive(password, salt, iterations);
    }

    public static ScramCredential derive(final char[] password, final byte[] salt, final int iterations)
    {
        if (iterations < ScramSha256.MIN_ITERATIONS || iterations > ScramSha256.MAX_ITERATIONS)
        {
            throw new IllegalArgumentException("iteration count " + iterations + " not in " +
                ScramSha256.MIN_ITERATIONS + ".." + ScramSha256.MAX_ITERATIONS);
        }
        final byte[] salted = ScramSha256.saltedPassword(password, salt, iterations);
        try
        {
            return new ScramCredential(iterations, salt,
                ScramSha256.sha256(ScramSha256.hmac(salted, "Client Key")), ScramSha256.hmac(salted, "Server Key"));
        }
        finally
        {
            Arrays.fill(salted, (byte)0);
        }
    }

    /** Whether {@code password} is the one this credential was made from (RESP's AUTH, which sends it). */
    public boolean matches(final char[] password)
    {
        final ScramCredential other = derive(password, salt, iterations);
        return MessageDigest.isEqual(other.storedKey, storedKey) & MessageDigest.isEqual(other.serverKey, serverKey);
    }

    /** {@code SCRAM-SHA-256$i:salt$StoredKey:ServerKey}. */
    public String encode()
    {
        return ScramSha256.MECHANISM + '$' + iterations + ':' + ScramSha256.b64(salt) + '$' +
            ScramSha256.b64(storedKey) + ':' + ScramSha256.b64(serverKey);
    }

    /** @throws IllegalArgumentException saying what is wrong (never echoing the keys). */
    public static ScramCredential parse(final String text)
    {
        final String[] parts = text.split("\\$", -1);
        if (parts.length != 3 || !parts[0].equals(ScramSha256.MECHANISM))
        {
            throw new IllegalArgumentException("a credential is " + ScramSha256.MECHANISM +
                "$<iterations>:<salt>$<StoredKey>:<ServerKey>");
        }
        final String[] head = parts[1].split(":", -1);
        final String[] keys = parts[2].split(":", -1);
        if (head.length != 2 || keys.length != 2)
        {
            throw new IllegalArgumentException("a credential is " + ScramSha256.MECHANISM +
                "$<iterations>:<salt>$<StoredKey>:<ServerKey>");
        }
        final int iterations;
        try
        {
            iterations = Integer.parseInt(head[0]);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("iteration count '" + head[0] + "' is not a number");
        }
        try
        {
            return new ScramCredential(iterations, ScramSha256.unb64(head[1]), ScramSha256.unb64(keys[0]),
                ScramSha256.unb64(keys[1]));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("credential: " + ex.getMessage());
        }
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof ScramCredential c && c.iterations == iterations && Arrays.equals(c.salt, salt) &&
            Arrays.equals(c.storedKey, storedKey) && Arrays.equals(c.serverKey, serverKey);
    }

    @Override
    public int hashCode()
    {
        return 31 * iterations + Arrays.hashCode(salt);
    }

    @Override
    public String toString()
    {
        return "ScramCredential{iterations=" + iterations + '}';
    }
}
