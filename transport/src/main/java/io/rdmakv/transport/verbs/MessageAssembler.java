package io.rdmakv.transport.verbs;

import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Joins the fragments of one message (RC delivers them in order, so appending is enough). A message that fits one
 * receive buffer never comes here: it is delivered straight out of the registered buffer. The buffer grows to the
 * largest message seen and is then reused, so a steady state allocates nothing. Progress thread only.
 */
final class MessageAssembler
{
    /** {@link #append} result: more fragments are expected. */
    static final int INCOMPLETE = -1;
    /** {@link #append} result: the message would exceed the limit; what was gathered is dropped. */
    static final int TOO_LARGE = -2;

    private final int maxMessageBytes;
    private final ExpandableDirectByteBuffer buffer = new ExpandableDirectByteBuffer(64 * 1024);
    private int length;

    MessageAssembler(final int maxMessageBytes)
    {
        this.maxMessageBytes = maxMessageBytes;
    }

    /** True while a message is partly gathered. */
    boolean inProgress()
    {
        return length > 0;
    }

    /**
     * Add one fragment.
     *
     * @return the message length when {@code more} is false (the message is then in {@link #buffer()} from 0),
     *         {@link #INCOMPLETE}, or {@link #TOO_LARGE}.
     */
    int append(final DirectBuffer src, final int offset, final int fragmentLength, final boolean more)
    {
        if ((long)length + fragmentLength > maxMessageBytes)
        {
            length = 0;
            return TOO_LARGE;
        }
        buffer.putBytes(length, src, offset, fragmentLength);
        length += fragmentLength;
        if (more)
        {
            return INCOMPLETE;
        }
        final int complete = length;
        length = 0;
        return complete;
    }

    MutableDirectBuffer buffer()
    {
        return buffer;
    }
}
