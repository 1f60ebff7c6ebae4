package io.rdmakv.protocol.auth;

import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The functions of SCRAM-SHA-256 (RFC 5802 section 3, RFC 7677): Hi = PBKDF2-HMAC-SHA256, HMAC, H = SHA-256, and the
 * attribute syntax of its messages ({@code a=value,b=value}). The password is used as its UTF-8 bytes (no SASLprep:
 * ASCII passwords are unaffected).
 */
public final class ScramSha256
{
    /** The mechanism's name, as the users file writes it. */
    public static final String MECHANISM = "SCRAM-SHA-256";
    /** RFC 7677: at least 4096. */
    public static final int MIN_ITERATIONS = 4096;
    /** The iteration count {@code rdmakv user add} writes unless told otherwise. */
    public static final int DEFAULT_ITERATIONS = 100_000;
    /** Refused above this: a users file could otherwise make a login cost the node minutes. */
    public static final int MAX_ITERATIONS = 10_000_000;
    static final int KEY_BYTES = 32;

    private ScramSha256()
    {
    }

    /** SaltedPassword := Hi(Normalize(password), salt, i). */
    public static byte[] saltedPassword(final char[] password, final byte[] salt, final int iterations)
    {
        final PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, KEY_BYTES * 8);
        try
        {
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("the JDK lacks PBKDF2WithHmacSHA256", ex);
        }
        finally
        {
            spec.clearPassword();
        }
    }

    public static byte[] hmac(final byte[] key, final String text)
    {
        return hmac(key, text.getBytes(StandardCharsets.UTF_8));
    }

    public static byte[] hmac(final byte[] key, final byte[] data)
    {
        try
        {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("the JDK lacks HmacSHA256", ex);
        }
    }

    public static byte[] sha256(final byte[] data)
    {
        try
        {
            return MessageDigest.getInstance("SHA-256").digest(data);
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("the JDK lacks SHA-256", ex);
        }
    }

    static byte[] xor(final byte[] a, final byte[] b)
    {
        final byte[] out = new byte[a.length];
        for (int i = 0; i < a.length; i++)
        {
            out[i] = (byte)(a[i] ^ b[i]);
        }
        return out;
    }

    static String b64(final byte[] bytes)
    {
        return Base64.getEncoder().encodeToString(bytes);
    }

    /** @throws IllegalArgumentException when not base64. */
    static byte[] unb64(final String text)
    {
        return Base64.getDecoder().decode(text);
    }

    /**
     * The attributes of a message, in order ({@code n=user,r=nonce}); a value may contain '=' but not ','.
     *
     * @throws IllegalArgumentException for an attribute without {@code x=}.
     */
    static Map<Character, String> attributes(final String message)
    {
        final Map<Character, String> out = new LinkedHashMap<>();
        for (final String part : message.split(",", -1))
        {
            if (part.length() < 2 || part.charAt(1) != '=')
            {
                throw new IllegalArgumentException("malformed SCRAM attribute");
            }
            out.putIfAbsent(part.charAt(0), part.substring(2));
        }
        return out;
    }

    /** RFC 5802's saslname: ',' as =2C and '=' as =3D. */
    static String escapeName(final String name)
    {
        return name.replace("=", "=3D").replace(",", "=2C");
    }

    static String unescapeName(final String name)
    {
        return name.replace("=2C", ",").replace("=3D", "=");
    }
}
