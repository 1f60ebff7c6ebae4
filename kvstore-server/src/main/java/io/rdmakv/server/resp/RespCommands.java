package io.rdmakv.server.resp;

import io.rdmakv.protocol.auth.ScramCredential;
import io.rdmakv.protocol.auth.ScramSha256;
import io.rdmakv.protocol.auth.User;
import io.rdmakv.server.admission.SourceAddress;
import io.rdmakv.server.session.Access;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Dispatch of one RESP command, with Redis's error texts: authentication first ({@code -NOAUTH}), then the arity of
 * {@link CommandTable}, then the command. Connection commands are answered here; key commands by
 * {@link StoreCommands}; INFO and COMMAND by {@link RespIntrospection}. Event loop only.
 */
final class RespCommands
{
    private static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";

    private final RespSettings settings;
    private final StoreCommands store;
    private final RespIntrospection introspection;
    private final RespCluster cluster;

    RespCommands(final RespSettings settings, final RespIntrospection introspection, final RespCluster cluster)
    {
        this.settings = settings;
        this.store = new StoreCommands(settings.maxKeyBytes(), settings.maxValueBytes(), cluster);
        this.introspection = introspection;
        this.cluster = cluster;
    }

    /** The reply to {@code args} (the command name first), ready or waiting for the node's answers. */
    PendingReply execute(final RespSession session, final byte[][] args, final StoreCommands.StoreCalls calls)
    {
        final CommandTable.Spec spec = CommandTable.find(args[0]);
        if (spec == null)
        {
            return ready(RespReply.error(unknownCommand(args)));
        }
        final String name = spec.name(); // the table's own String: none is made per command
        session.lastCommand = name;
        if (!session.authenticated && !spec.flags().contains("no_auth"))
        {
            return ready(RespReply.error("NOAUTH Authentication required."));
        }
        final String refusal = RespAccess.refusal(session.access, spec, args);
        if (refusal != null)
        {
            return ready(RespReply.error("NOPERM " + refusal));
        }
        if (!spec.arityFits(args.length))
        {
            return ready(RespReply.error("ERR wrong number of arguments for '" + name + "' command"));
        }
        return switch (name)
        {
            case "ping" -> ready(args.length == 1 ? RespReply.simple("PONG") : args.length == 2 ?
                RespReply.bulk(args[1]) : RespReply.error("ERR wrong number of arguments for 'ping' command"));
            case "echo" -> ready(RespReply.bulk(args[1]));
            case "quit" ->
            {
                session.quitting = true;
                yield ready(RespReply.OK);
            }
            case "select" -> ready(select(args[1]));
            case "auth" -> auth(session, args);
            case "hello" -> hello(session, args);
            case "client" -> ready(client(session, args));
            case "dbsize" -> ready(RespReply.integer(introspection.keyCount()));
            case "info" -> ready(RespReply.bulk(introspection.info(args)));
            case "command" -> ready(introspection.command(args));
            case "cluster" -> ready(cluster.command(args));
            case "scan" -> store.scan(session.access, args, calls);
            default ->
            {
                final RespReply elsewhere = cluster.route(args, spec.firstKey(), spec.lastKey(), spec.step());
                yield elsewhere != null ? ready(elsewhere) : store.execute(name, args, calls);
            }
        };
    }

    private static PendingReply ready(final RespReply reply)
    {
        return PendingReply.ready(reply);
    }

    /** Redis's words: {@code unknown command 'x', with args beginning with: 'a' 'b' }. */
    static String unknownCommand(final byte[][] args)
    {
        final StringBuilder sb = new StringBuilder("ERR unknown command '")
            .append(clip(new String(args[0], StandardCharsets.UTF_8))).append("', with args beginning with: ");
        for (int i = 1; i < args.length && sb.length() < 256; i++)
        {
            sb.append('\'').append(clip(new String(args[i], StandardCharsets.UTF_8))).append("' ");
        }
        return sb.toString();
    }

    private static String clip(final String s)
    {
        return s.length() > 128 ? s.substring(0, 128) : s;
    }

    private static RespReply select(final byte[] index)
    {
        final String s = new String(index, StandardCharsets.US_ASCII);
        try
        {
            return Long.parseLong(s) == 0 ? RespReply.OK : RespReply.error("ERR DB index is out of range");
        }
        catch (final NumberFormatException ex)
        {
            return RespReply.error("ERR value is not an integer or out of range");
        }
    }

    private PendingReply auth(final RespSession session, final byte[][] args)
    {
        if (args.length > 3)
        {
            return ready(RespReply.error("ERR syntax error"));
        }
        if (args.length == 3 && settings.users() != null && !isDefault(args[1]))
        {
            return login(session, args[1], args[2], refused -> refused == null ? RespReply.OK :
                RespReply.error(refused));
        }
        if (settings.secret() == null)
        {
            return ready(RespReply.error("ERR AUTH <password> called without any password configured for the " +
                "default user. Are you sure your configuration is correct?"));
        }
        final boolean ok = args.length == 2 ? matches(args[1]) : isDefault(args[1]) && matches(args[2]);
        if (ok)
        {
            session.authenticated = true;
            session.access = Access.SHARED_SECRET;
        }
        return ready(ok ? RespReply.OK : RespReply.error(WRONGPASS));
    }

    private static boolean isDefault(final byte[] user)
    {
        return "default".equals(new String(user, StandardCharsets.UTF_8));
    }

    /**
     * {@code AUTH user password} against the users file: the password is checked against the user's SCRAM
     * credential (the same PBKDF2 work for an unknown name, so the time tells nothing), off the event loop
     * ({@link CredentialChecks}). A source over its failed-login rate is refused before any PBKDF2 work.
     *
     * @param then makes the reply on the event loop from the outcome: null when logged in (the session then has the
     *             user's access), else the error.
     */
    private PendingReply login(final RespSession session, final byte[] name, final byte[] password,
        final java.util.function.Function<String, RespReply> then)
    {
        final InetAddress source = SourceAddress.of(session.remote);
        if (settings.loginThrottle().delayNanos(source, System.nanoTime(), 0) != 0)
        {
            return ready(then.apply(THROTTLED));
        }
        final User user = settings.users().user(new String(name, StandardCharsets.UTF_8));
        final char[] chars = new String(password, StandardCharsets.UTF_8).toCharArray();
        return PendingReply.afterCheck(CredentialChecks.check(user == null ? UNKNOWN_USER : user.credential(), chars),
            matched ->
            {
                if (!matched || user == null)
                {
                    settings.loginThrottle().recordFailure(source, System.nanoTime());
                    return then.apply(WRONGPASS);
                }
                session.authenticated = true;
                session.access = Access.of(user);
                return then.apply(null);
            });
    }

    private static final String THROTTLED = "ERR too many failed logins from this address; retry later";

    /** What an unknown name is checked against (no password matches its keys). */
    private static final ScramCredential UNKNOWN_USER = new ScramCredential(ScramSha256.DEFAULT_ITERATIONS,
        new byte[ScramCredential.SALT_BYTES], new byte[32], new byte[32]);

    private static boolean setAccess(final RespSession session)
    {
        session.access = Access.SHARED_SECRET;
        return true;
    }

    private boolean matches(final byte[] password)
    {
        return settings.secret() != null && MessageDigest.isEqual(settings.secret(), password);
    }

    /** {@code HELLO [protover [AUTH username password] [SETNAME clientname]]}. */
    private PendingReply hello(final RespSession session, final byte[][] args)
    {
        int proto = session.proto;
        if (args.length > 1)
        {
            try
            {
                proto = Integer.parseInt(new String(args[1], StandardCharsets.US_ASCII));
            }
            catch (final NumberFormatException ex)
            {
                return ready(RespReply.error("ERR Protocol version is not an integer or out of range"));
            }
            if (proto < 2 || proto > 3)
            {
                return ready(RespReply.error("NOPROTO unsupported protocol version"));
            }
        }
        String setName = null;
        boolean authenticated = session.authenticated;
        byte[] loginName = null;
        byte[] loginPassword = null;
        for (int i = 2; i < args.length; i++)
        {
            final String option = CommandTable.lower(args[i]);
            if (option.equals("auth") && i + 2 < args.length)
            {
                if (isDefault(args[i + 1]))
                {
                    if (!(matches(args[i + 2]) && setAccess(session)))
                    {
                        return ready(RespReply.error(WRONGPASS));
                    }
                    authenticated = true;
                }
                else if (settings.users() == null)
                {
                    return ready(RespReply.error(WRONGPASS));
                }
                else
                {
                    loginName = args[i + 1];
                    loginPassword = args[i + 2];
                }
                i += 2;
            }
            else if (option.equals("setname") && i + 1 < args.length)
            {
                setName = new String(args[++i], StandardCharsets.UTF_8);
                if (!validName(setName))
                {
                    return ready(RespReply.error(BAD_NAME));
                }
            }
            else
            {
                return ready(RespReply.error("ERR Syntax error in HELLO option '" + option + "'"));
            }
        }
        final int chosen = proto;
        final String name = setName;
        if (loginName != null)
        {
            return login(session, loginName, loginPassword, refused -> refused != null ? RespReply.error(refused) :
                helloDone(session, true, chosen, name));
        }
        return ready(helloDone(session, authenticated, chosen, name));
    }

    private RespReply helloDone(final RespSession session, final boolean authenticated, final int proto,
        final String setName)
    {
        if (!authenticated)
        {
            return RespReply.error("NOAUTH HELLO must be called with the client already authenticated, otherwise " +
                "the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the " +
                "RESP protocol version at the same time");
        }
        session.authenticated = true;
        session.proto = proto;
        if (setName != null)
        {
            session.name = setName.isEmpty() ? null : setName;
        }
        return introspection.hello(session);
    }

    private static final String BAD_NAME = "ERR Client names cannot contain spaces, newlines or special characters.";

    private static boolean validName(final String name)
    {
        for (int i = 0; i < name.length(); i++)
        {
            final char c = name.charAt(i);
            if (c < '!' || c > '~')
            {
                return false;
            }
        }
        return true;
    }

    private static RespReply client(final RespSession session, final byte[][] args)
    {
        final String sub = CommandTable.lower(args[1]);
        switch (sub)
        {
            case "setname":
                if (args.length != 3)
                {
                    break;
                }
                final String name = new String(args[2], StandardCharsets.UTF_8);
                if (!validName(name))
                {
                    return RespReply.error(BAD_NAME);
                }
                session.name = name.isEmpty() ? null : name;
                return RespReply.OK;
            case "getname":
                return args.length == 2 ? RespReply.bulk(session.name) : wrongArgs("client|getname");
            case "id":
                return args.length == 2 ? RespReply.integer(session.id) : wrongArgs("client|id");
            case "info":
                return args.length == 2 ? RespReply.bulk(session.info()) : wrongArgs("client|info");
            case "setinfo":
                // Clients announce their library's name and version after connecting; nothing keeps it yet.
                return args.length == 4 ? RespReply.OK : wrongArgs("client|setinfo");
            default:
                return RespReply.error("ERR unknown subcommand '" + clip(new String(args[1], StandardCharsets.UTF_8)) +
                    "'. Try CLIENT HELP.");
        }
        return wrongArgs("client|" + sub);
    }

    private static RespReply wrongArgs(final String name)
    {
        return RespReply.error("ERR wrong number of arguments for '" + name.toLowerCase(Locale.ROOT) + "' command");
    }

    /** Arguments as text, for tests and logs. */
    static List<String> text(final byte[][] args)
    {
        final List<String> out = new ArrayList<>(args.length);
        for (final byte[] a : args)
        {
            out.add(new String(a, StandardCharsets.UTF_8));
        }
        return out;
    }
}
