package io.rdmakv.server.cluster.ratis;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The state machine's answer to a command or query: accepted (refusal null) or why not, and the state after it; or,
 * to a renewal from a node that already holds the current configuration, only that epoch ({@link #unchanged}).
 *
 * <pre>
 *   u8 form (0 refused, 1 accepted, 2 accepted and unchanged) | UTF refusal (empty unless refused)
 *   | form 0, 1: state (CommandCodec) to the end;  form 2: u64 the configuration epoch
 * </pre>
 * A renewal's answer without the state is 11 bytes whatever the cluster's size (the whole state is 68.6 KB at 1,000
 * nodes), so renewals, most of the group's commands, cost the leader a constant answer each.
 *
 * @param refusal why the command was refused, or null.
 * @param state   the state after the command, or null in an {@link #unchanged} answer.
 * @param epoch   the configuration epoch after the command.
 */
public record CommandReply(String refusal, CoordState state, long epoch)
{
    private static final int REFUSED = 0;
    private static final int ACCEPTED = 1;
    private static final int UNCHANGED = 2;

    /** An answer with the state after the command. */
    public CommandReply(final String refusal, final CoordState state)
    {
        this(refusal, state, state.cluster().epoch());
    }

    /** An accepted renewal's answer to a node that holds configuration {@code epoch}, the current one: no state. */
    public static CommandReply unchanged(final long epoch)
    {
        return new CommandReply(null, null, epoch);
    }

    public boolean accepted()
    {
        return refusal == null;
    }

    /** Whether the answer leaves the state out: the asker's configuration (at {@link #epoch()}) is current. */
    public boolean stateOmitted()
    {
        return state == null;
    }

    public byte[] encode()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(state == null ? 16 : 256);
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            out.writeByte(state == null ? UNCHANGED : refusal == null ? ACCEPTED : REFUSED);
            out.writeUTF(refusal == null ? "" : refusal.length() > 1000 ? refusal.substring(0, 1000) : refusal);
            if (state == null)
            {
                out.writeLong(epoch);
            }
            else
            {
                out.write(CommandCodec.encode(state));
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    /** Strict: a malformed answer fails with {@link IllegalArgumentException}. */
    public static CommandReply decode(final byte[] bytes)
    {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes)))
        {
            final int form = in.readUnsignedByte();
            final String refusal = in.readUTF();
            switch (form)
            {
                case REFUSED:
                    return new CommandReply(refusal, CommandCodec.decodeState(in.readAllBytes()));
                case ACCEPTED:
                    return new CommandReply(null, CommandCodec.decodeState(in.readAllBytes()));
                case UNCHANGED:
                    final long epoch = in.readLong();
                    if (in.available() > 0)
                    {
                        throw new IllegalArgumentException("trailing bytes after an unchanged cluster reply");
                    }
                    return unchanged(epoch);
                default:
                    throw new IllegalArgumentException("unknown cluster reply form " + form);
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("truncated cluster reply: " + ex, ex);
        }
    }
}
