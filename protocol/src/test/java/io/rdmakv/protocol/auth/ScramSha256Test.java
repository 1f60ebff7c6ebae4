package io.rdmakv.protocol.auth;

import org.junit.jupiter.api.Test;

import java.util.Base64;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SCRAM-SHA-256 against RFC 7677 section 3's exchange, and what the node refuses. */
class ScramSha256Test
{
    private static final String CLIENT_NONCE = "rOprNGfwEbeRWgbNEkqO";
    private static final String SERVER_NONCE = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
    private static final String CLIENT_FIRST = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
    private static final String SERVER_FIRST =
        "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
    private static final String CLIENT_FINAL =
        "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    private static final String SERVER_FINAL = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";
    private static final byte[] NODE_KEY = new byte[32];

    private static ScramCredential pencil()
    {
        return ScramCredential.derive("pencil".toCharArray(), Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ=="),
            4096);
    }

    @Test
    void shouldProduceRfc7677sClientMessages()
    {
        final ScramClient client = new ScramClient("user", "pencil".toCharArray(), CLIENT_NONCE);
        assertEquals(CLIENT_FIRST, client.clientFirst());
        assertEquals(CLIENT_FINAL, client.clientFinal(SERVER_FIRST));
        client.verifyServerFinal(SERVER_FINAL);
    }

    @Test
    void shouldAnswerRfc7677sExchangeOnTheNode()
    {
        final ScramServer server = new ScramServer(Map.of("user", pencil())::get, NODE_KEY, SERVER_NONCE);
        assertEquals(SERVER_FIRST, server.serverFirst(CLIENT_FIRST));
        assertEquals("user", server.user());
        assertEquals(SERVER_FINAL, server.finish(CLIENT_FINAL));
    }

    @Test
    void shouldRefuseAWrongPasswordAndAnUnknownUserAlike()
    {
        final ScramServer wrong = new ScramServer(Map.of("user", pencil())::get, NODE_KEY);
        final ScramClient guesser = new ScramClient("user", "pen".toCharArray());
        final String challenge = wrong.serverFirst(guesser.clientFirst());
        assertNull(wrong.finish(guesser.clientFinal(challenge)));

        final ScramServer unknown = new ScramServer(Map.of("user", pencil())::get, NODE_KEY);
        final ScramClient stranger = new ScramClient("nobody", "pencil".toCharArray());
        final String fake = unknown.serverFirst(stranger.clientFirst());
        // The challenge of an unknown name looks like a known one's and is the same every time (no probing by salt).
        assertTrue(fake.contains(",s=") && fake.endsWith(",i=" + ScramSha256.DEFAULT_ITERATIONS), fake);
        final String again = new ScramServer(Map.<String, ScramCredential>of()::get, NODE_KEY).serverFirst(
            new ScramClient("nobody", "x".toCharArray()).clientFirst());
        assertEquals(fake.substring(fake.indexOf(",s=")), again.substring(again.indexOf(",s=")));
        assertNull(unknown.finish(stranger.clientFinal(fake)));
    }

    @Test
    void shouldRefuseAProofReplayedIntoAnotherExchange()
    {
        final ScramServer first = new ScramServer(Map.of("user", pencil())::get, NODE_KEY, SERVER_NONCE);
        first.serverFirst(CLIENT_FIRST);
        assertNotNull(first.finish(CLIENT_FINAL));
        final ScramServer second = new ScramServer(Map.of("user", pencil())::get, NODE_KEY); // a fresh nonce
        second.serverFirst(CLIENT_FIRST);
        assertNull(second.finish(CLIENT_FINAL));
    }

    @Test
    void shouldRefuseMalformedMessagesWithAReason()
    {
        final ScramServer server = new ScramServer(Map.<String, ScramCredential>of()::get, NODE_KEY);
        assertThrows(IllegalArgumentException.class, () -> server.serverFirst("p=tls-unique,,n=u,r=x"));
        assertThrows(IllegalArgumentException.class, () -> new ScramServer(Map.<String, ScramCredential>of()::get, NODE_KEY)
            .serverFirst("n,a=admin,n=u,r=x"));
        assertThrows(IllegalArgumentException.class, () -> new ScramServer(Map.<String, ScramCredential>of()::get, NODE_KEY)
            .serverFirst("garbage"));
        final ScramServer ok = new ScramServer(Map.of("user", pencil())::get, NODE_KEY);
        ok.serverFirst(CLIENT_FIRST);
        assertNull(ok.finish("c=biws,r=nope"));
        assertNull(ok.finish("c=biws,r=x,p=!!!"));
    }

    @Test
    void shouldRefuseANodeThatDoesNotHoldTheServerKey()
    {
        final ScramClient client = new ScramClient("user", "pencil".toCharArray(), CLIENT_NONCE);
        client.clientFirst();
        client.clientFinal(SERVER_FIRST);
        assertThrows(IllegalArgumentException.class,
            () -> client.verifyServerFinal("v=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="));
        final ScramClient other = new ScramClient("user", "p".toCharArray(), CLIENT_NONCE);
        other.clientFirst();
        assertThrows(IllegalArgumentException.class,
            () -> other.clientFinal("r=someoneElsesNonce,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"));
        assertThrows(IllegalArgumentException.class,
            () -> other.clientFinal("r=" + CLIENT_NONCE + "x,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=99999999"));
    }

    @Test
    void shouldCheckAPasswordAgainstTheKeptCredential()
    {
        assertTrue(pencil().matches("pencil".toCharArray()));
        assertFalse(pencil().matches("pencil ".toCharArray()));
        assertEquals(pencil(), ScramCredential.parse(pencil().encode()));
        assertThrows(IllegalArgumentException.class, () -> ScramCredential.derive("x".toCharArray(), new byte[4], 100));
    }
}
