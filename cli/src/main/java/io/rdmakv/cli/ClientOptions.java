package io.rdmakv.cli;

import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientBuilder;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Options every client command shares: where the cluster is and how to talk to it. */
public final class ClientOptions
{
    @Option(names = {"-s", "--server"}, paramLabel = "HOST:PORT",
        description = "Control-plane address of a node (repeat for several seeds). Default: 127.0.0.1:" +
            KvClientBuilder.DEFAULT_CONTROL_PORT + ".")
    List<String> servers = new ArrayList<>();

    @Option(names = "--transport", paramLabel = "NAME", defaultValue = "auto",
        description = "auto (best available), tcp or verbs. Default: ${DEFAULT-VALUE}.")
    String transport;

    @Option(names = "--get-mode", paramLabel = "MODE", defaultValue = "auto",
        description = "auto (one-sided when reads are native), one-sided or rpc. Default: ${DEFAULT-VALUE}.")
    String getMode;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "5000",
        description = "Connect and request timeout in milliseconds. Default: ${DEFAULT-VALUE}.")
    long timeoutMillis;

    @Mixin
    SecretOptions secret = new SecretOptions();

    @Mixin
    TlsOptions tls = new TlsOptions();

    /** Longest connect and request timeout accepted: an hour. */
    static final long MAX_TIMEOUT_MILLIS = 3_600_000L;

    /**
     * A connected client as the options say.
     *
     * @throws IllegalArgumentException for a timeout outside 1 ms .. 1 h (a usage error).
     */
    public KvClient connect()
    {
        if (timeoutMillis < 1 || timeoutMillis > MAX_TIMEOUT_MILLIS)
        {
            throw new IllegalArgumentException("--timeout-ms must be between 1 and " + MAX_TIMEOUT_MILLIS + ", got " +
                timeoutMillis);
        }
        final KvClientBuilder builder = KvClient.builder()
            .transport(transport)
            .getMode(GetMode.parse(getMode))
            .connectTimeout(Duration.ofMillis(timeoutMillis))
            .requestTimeout(Duration.ofMillis(timeoutMillis));
        if (servers.isEmpty())
        {
            builder.server("127.0.0.1:" + KvClientBuilder.DEFAULT_CONTROL_PORT);
        }
        else
        {
            builder.servers(servers);
        }
        tls.applyTo(builder);
        final String text = secret.secret();
        if (text != null)
        {
            builder.secret(text);
        }
        builder.login(secret.login());
        return builder.build();
    }

}
