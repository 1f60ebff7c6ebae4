package io.rdmakv.protocol.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;

/**
 * The node's side of one SCRAM-SHA-256 exchange (RFC 5802, no channel binding). An unknown user gets a challenge like
 * a known one's (a salt derived from the name with a per-node key, the default iteration count) and fails at the
 * proof, so the answer to a name says nothing of whether it exists. One exchange per instance, one thread.
 *
 * <pre>
 *   client-first  n,,n=user,r=cnonce          -> serverFirst(): r=cnonce+snonce,s=salt,i=iterations
 *   client-final  c=biws,r=cnonce+snonce,p=proof -> finish(): v=ServerSignature, or null (wrong proof, unknown user)
 * </pre>
 */
public final class ScramServer
{
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Function<String, ScramCredential> credentials;
    private final byte[] unknownUserKey;
    private final String serverNonce;
    private String user;
    private ScramCredential credential;
    private boolean known;
    private String clientFirstBare;
    private String serverFirst;
    private String gs2Header;

    /**
     * @param credentials    a user's credential, or null when there is no such user.
     * @param unknownUserKey a per-node random key the fake salts of unknown users are derived with.
     */
    public ScramServer(final Function<String, ScramCredential> credentials, final byte[] unknownUserKey)
    {
        this(credentials, unknownUserKey, ScramClient.newNonce(RANDOM));
    }

    /** @param serverNonce printable ASCII without ',' (a test gives RFC 7677's). */
    public ScramServer(final Function<String, ScramCredential> credentials, final byte[] unknownUserKey,
        final String serverNonce)
    {
        this.credentials = credentials;
        this.unknownUserKey = unknownUserKey.clone();
        this.serverNonce = serverNonce;
    }

    /** The user the client named (after {@link #serverFirst}), known or not. */
    public String user()
    {
        return user;
    }

    /**
     * The challenge for {@code clientFirst}.
     *
     * @throws IllegalArgumentException when it is not a SCRAM client-first message this node takes (channel binding,
     *                                  an authorization identity, no user or nonce).
     */
    public String serverFirst(final String clientFirst)
    {
        if (serverFirst != null)
        {
            throw new IllegalStateException("one exchange per ScramServer");
        }
        final int first = clientFirst.indexOf(',');
        final int second = first < 0 ? -1 : clientFirst.indexOf(',', first + 1);
        if (second < 0)
        {
            throw new IllegalArgumentException("not a SCRAM client-first message");
        }
        final String binding = clientFirst.substring(0, first);
        if (!binding.equals("n") && !binding.equals("y"))
        {
            throw new IllegalArgumentException("SCRAM channel binding is not supported (use n)");
        }
        if (second != first + 1)
        {
            throw new IllegalArgumentException("a SCRAM authorization identity (a=) is not supported");
        }
        gs2Header = clientFirst.substring(0, second + 1);
        clientFirstBare = clientFirst.substring(second + 1);
        final Map<Character, String> a = ScramSha256.attributes(clientFirstBare);
        final String name = a.get('n');
        final String nonce = a.get('r');
        if (name == null || name.isEmpty() || nonce == null || nonce.isEmpty() || a.containsKey('m'))
        {
            throw new IllegalArgumentException("a SCRAM client-first message names a user (n=) and a nonce (r=)");
        }
        user = ScramSha256.unescapeName(name);
        final ScramCredential found = credentials.apply(user);
        known = found != null;
        credential = known ? found : fake(user);
        serverFirst = "r=" + nonce + serverNonce + ",s=" + ScramSha256.b64(credential.salt()) + ",i=" +
            credential.iterations();
        return serverFirst;
    }

    /** A credential no password matches, with a salt that is the same for the same name on this node. */
    private ScramCredential fake(final String name)
    {
        final byte[] salt = Arrays.copyOf(ScramSha256.hmac(unknownUserKey, "salt:" + name),
            ScramCredential.SALT_BYTES);
        final byte[] stored = ScramSha256.hmac(unknownUserKey, "stored:" + name);
        return new ScramCredential(ScramSha256.DEFAULT_ITERATIONS, salt, stored, stored);
    }

    /**
     * Check the client's proof.
     *
     * @return the server-final message ({@code v=...}) when the proof is right for a known user; null otherwise
     *         (wrong password, unknown user, another nonce, a malformed message: the same to the caller).
     */
    public String finish(final String clientFinal)
    {
        if (serverFirst == null)
        {
            throw new IllegalStateException("serverFirst() first");
        }
        final int proofAt = clientFinal.lastIndexOf(",p=");
        if (proofAt < 0)
        {
            return null;
        }
        final String withoutProof = clientFinal.substring(0, proofAt);
        final Map<Character, String> a;
        final byte[] proof;
        try
        {
            a = ScramSha256.attributes(withoutProof);
            proof = ScramSha256.unb64(clientFinal.substring(proofAt + 3));
        }
        catch (final IllegalArgumentException ex)
        {
            return null;
        }
        final String expectedNonce = ScramSha256.attributes(serverFirst).get('r');
        final String binding = ScramSha256.b64(gs2Header.getBytes(StandardCharsets.US_ASCII));
        if (!binding.equals(a.get('c')) || !expectedNonce.equals(a.get('r')) || proof.length != ScramSha256.KEY_BYTES)
        {
            return null;
        }
        final String authMessage = clientFirstBare + ',' + serverFirst + ',' + withoutProof;
        final byte[] clientKey = ScramSha256.xor(proof, ScramSha256.hmac(credential.storedKey(), authMessage));
        final boolean ok = MessageDigest.isEqual(ScramSha256.sha256(clientKey), credential.storedKey());
        if (!ok || !known)
        {
            return null;
        }
        return "v=" + ScramSha256.b64(ScramSha256.hmac(credential.serverKey(), authMessage));
    }
}
