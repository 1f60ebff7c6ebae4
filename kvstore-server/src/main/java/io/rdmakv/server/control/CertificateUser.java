package io.rdmakv.server.control;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslHandler;
import io.rdmakv.protocol.auth.User;
import io.rdmakv.server.session.UsersDirectory;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The user a client certificate names: its DNS or email subject alternative names, then its subject's CN, the first
 * that is a user of the users file. Only a certificate the TLS handshake verified against {@code tls.caFile} (the node
 * requires one: {@code tls.clientAuth=required}) gets here.
 */
final class CertificateUser
{
    private static final int SAN_EMAIL = 1;
    private static final int SAN_DNS = 2;

    private CertificateUser()
    {
    }

    /** The user the peer's certificate names, or null (no TLS, no certificate, no such user). */
    static User of(final ChannelHandlerContext ctx, final UsersDirectory users)
    {
        final SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        if (ssl == null || users == null)
        {
            return null;
        }
        final Certificate[] chain;
        try
        {
            chain = ssl.engine().getSession().getPeerCertificates();
        }
        catch (final SSLPeerUnverifiedException ex)
        {
            return null;
        }
        if (chain.length == 0 || !(chain[0] instanceof X509Certificate cert))
        {
            return null;
        }
        for (final String name : names(cert))
        {
            final User user = users.user(name);
            if (user != null)
            {
                return user;
            }
        }
        return null;
    }

    /** DNS and email subject alternative names, then the subject's CNs. */
    static List<String> names(final X509Certificate cert)
    {
        final List<String> names = new ArrayList<>();
        try
        {
            final Collection<List<?>> alternatives = cert.getSubjectAlternativeNames();
            if (alternatives != null)
            {
                for (final List<?> entry : alternatives)
                {
                    if (entry.size() >= 2 && entry.get(0) instanceof Integer type &&
                        (type == SAN_DNS || type == SAN_EMAIL) && entry.get(1) instanceof String value)
                    {
                        names.add(value);
                    }
                }
            }
        }
        catch (final CertificateParsingException ex)
        {
            // no usable alternative names: the CN may still name the user
        }
        try
        {
            for (final Rdn rdn : new LdapName(cert.getSubjectX500Principal().getName()).getRdns())
            {
                if (rdn.getType().equalsIgnoreCase("CN"))
                {
                    names.add(String.valueOf(rdn.getValue()));
                }
            }
        }
        catch (final InvalidNameException ex)
        {
            // a subject the JDK printed but cannot parse back: no CN
        }
        return names;
    }
}
