package io.rdmakv.server.cluster.ratis;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The state machine's answer to a command or query: accepted (refusal null) or why not, and the state after it.
 *
 * <pre>
 *   u8 accepted | UTF refusal (empty when accepted) | state (CommandCodec) to the end
 * </pre>
 *
 * @param refusal why the command was refused, or null.
 * @param state   the state after the command.
 */
public record CommandReply(String refusal, CoordState state)
{
    public boolean accepted()
    {
        return refusal == null;
    }

    public byte[] encode()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            out.writeBoolean(refusal == null);
            out.writeUTF(refusal == null ? "" : refusal.length() > 1000 ? refusal.substring(0, 1000) : refusal);
            out.write(CommandCodec.encode(state));
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
            final boolean accepted = in.readBoolean();
            final String refusal = in.readUTF();
            final CoordState state = CommandCodec.decodeState(in.readAllBytes());
            return new CommandReply(accepted ? null : refusal, state);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("truncated cluster reply: " + ex, ex);
        }
    }
}
