package io.rdmakv.server;

import io.rdmakv.server.config.ServerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What TLS on a node ({@code tls.certFile}) means for its data path: TLS covers the control port and the tcp
 * transport, and RDMA traffic is not encrypted, so such a node serves tcp (and shm beside it, which never leaves
 * the host), never verbs.
 */
final class NodeTls
{
    private static final Logger LOG = LoggerFactory.getLogger(NodeTls.class);

    private NodeTls()
    {
    }

    /**
     * The transport the node asks the selector for: its {@code transport} setting, but {@code tcp} for {@code auto}
     * with TLS on.
     *
     * @throws ServerStartException for {@code transport=verbs} with TLS on.
     */
    static String transport(final ServerConfig config)
    {
        final String wanted = config.transport();
        if (!config.security().tls().enabled())
        {
            return wanted;
        }
        if (wanted.equals("verbs"))
        {
            throw new ServerStartException("transport=verbs with TLS on: RDMA traffic is not encrypted, so TLS " +
                "covers only the control port and the tcp transport; use transport=tcp (or auto), or turn TLS off " +
                "(docs/security.md)", null);
        }
        if (wanted.equals("auto"))
        {
            LOG.info("TLS on: the node serves tcp, not verbs (RDMA traffic would not be encrypted); shm beside it " +
                "stays on this host");
            return "tcp";
        }
        return wanted;
    }
}
