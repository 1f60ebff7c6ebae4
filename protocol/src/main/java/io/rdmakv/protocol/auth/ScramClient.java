package io.rdmakv.protocol.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Map;

/**
 * The client's side of one SCRAM-SHA-256 exchange (RFC 5802 section 5, no channel binding): {@link #clientFirst()}
 * (sent in HELLO), {@link #clientFinal(String)} (the proof, the answer to the node's challenge) and
 * {@link #verifyServerFinal(String)} (the node proves it knows the ServerKey). The password never leaves this object;
 * the proof is good for this exchange's nonces only. One exchange per instance, one thread.
 */
public final class ScramClient
{
    private static final String GS2_HEADER = "n,,";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String user;
    private final char[] password;
    private final String clientNonce;
    private String clientFirstBare;
    private byte[] expectedServerSignature;

    /** A client with a fresh random nonce. */
    public ScramClient(final String user, final char[] password)
    {
        this(user, password, newNonce(RANDOM));
    }

    /** @param clientNonce printable ASCII without ',' (a test gives RFC 7677's). */
    public ScramClient(final String user, final char[] password, final String clientNonce)
    {
        this.user = user;
        this.password = password.clone();
        this.clientNonce = clientNonce;
    }

    /** 18 random bytes, base64: printable, no ','. */
    static String newNonce(final SecureRandom random)
    {
        final byte[] bytes = new byte[18];
        random.nextBytes(bytes);
        return ScramSha256.b64(bytes);
    }

    public String user()
    {
        return user;
    }

    /** {@code n,,n=user,r=nonce}. */
    public String clientFirst()
    {
        clientFirstBare = "n=" + ScramSha256.escapeName(user) + ",r=" + clientNonce;
        return GS2_HEADER + clientFirstBare;
    }

    /**
     * The proof for the node's challenge.
     *
     * @throws IllegalArgumentException when the challenge is malformed, its nonce does not extend ours, or its
     *                                  iteration count is out of range.
     */
    public String clientFinal(final String serverFirst)
    {
        if (clientFirstBare == null)
        {
            throw new IllegalStateException("clientFirst() first");
        }
        final Map<Character, String> a = ScramSha256.attributes(serverFirst);
        final String nonce = a.get('r');
        final String salt = a.get('s');
        final String count = a.get('i');
        if (nonce == null || salt == null || count == null)
        {
            throw new IllegalArgumentException("the node's SCRAM challenge lacks r, s or i");
        }
        if (!nonce.startsWith(clientNonce) || nonce.length() == clientNonce.length())
        {
            throw new IllegalArgumentException("the node's SCRAM nonce does not extend this client's");
        }
        final int iterations;
        try
        {
            iterations = Integer.parseInt(count);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("the node's SCRAM iteration count is not a number");
        }
        if (iterations < ScramSha256.MIN_ITERATIONS || iterations > ScramSha256.MAX_ITERATIONS)
        {
            throw new IllegalArgumentException("the node's SCRAM iteration count " + iterations + " is not in " +
                ScramSha256.MIN_ITERATIONS + ".." + ScramSha256.MAX_ITERATIONS);
        }
        final byte[] salted = ScramSha256.saltedPassword(password, ScramSha256.unb64(salt), iterations);
        final String withoutProof = "c=" + ScramSha256.b64(GS2_HEADER.getBytes(StandardCharsets.US_ASCII)) +
            ",r=" + nonce;
        final String authMessage = clientFirstBare + ',' + serverFirst + ',' + withoutProof;
        final byte[] clientKey = ScramSha256.hmac(salted, "Client Key");
        final byte[] storedKey = ScramSha256.sha256(clientKey);
        final byte[] proof = ScramSha256.xor(clientKey, ScramSha256.hmac(storedKey, authMessage));
        expectedServerSignature = ScramSha256.hmac(ScramSha256.hmac(salted, "Server Key"), authMessage);
        Arrays.fill(salted, (byte)0);
        Arrays.fill(clientKey, (byte)0);
        return withoutProof + ",p=" + ScramSha256.b64(proof);
    }

    /**
     * Check the node's final message: it must hold {@code v=} with the signature only a holder of the ServerKey makes.
     *
     * @throws IllegalArgumentException when it does not (or the node sent {@code e=}).
     */
    public void verifyServerFinal(final String serverFinal)
    {
        final Map<Character, String> a = ScramSha256.attributes(serverFinal);
        if (a.containsKey('e'))
        {
            throw new IllegalArgumentException("the node refused the SCRAM proof: " + a.get('e'));
        }
        final String v = a.get('v');
        if (expectedServerSignature == null || v == null ||
            !MessageDigest.isEqual(expectedServerSignature, ScramSha256.unb64(v)))
        {
            throw new IllegalArgumentException("the node's SCRAM signature is wrong: it does not hold this user's " +
                "ServerKey");
        }
    }

    /** Forget the password. */
    public void clear()
    {
        Arrays.fill(password, '\0');
    }
}
