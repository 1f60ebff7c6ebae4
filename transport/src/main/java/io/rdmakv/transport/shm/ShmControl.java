package io.rdmakv.transport.shm;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * The control messages of an shm connection, one {@link UnixSeqPacket} message each (native byte order: both ends
 * are on one host). Data never travels here: only the handshake, the descriptors of shared files, and region mapping.
 * <pre>
 *   HELLO       type=1 | version u32                                        connecting -> accepting
 *   WELCOME     type=2 | version u32 | ring capacity u32                    accepting -> connecting
 *               + descriptors: rings file (read-write), region table (read-only)
 *   MAP         type=3 | region id u32 | token u64                          reader -> owner of the region
 *   MAPPED      type=4 | region id u32 | status u32 | generation u64 | file offset u64 | base u64 | length u64
 *               + descriptor: the region's memory file, read-only (status OK only)
 *   REFUSE      type=5 | reason length u32 | reason (UTF-8)                 accepting -> connecting, then close
 * </pre>
 */
final class ShmControl
{
    static final int HELLO = 1;
    static final int WELCOME = 2;
    static final int MAP = 3;
    static final int MAPPED = 4;
    static final int REFUSE = 5;

    static final int MAPPED_OK = 0;
    static final int MAPPED_UNKNOWN_REGION = 1;
    static final int MAPPED_BAD_TOKEN = 2;

    static final int HELLO_LENGTH = 8;
    static final int WELCOME_LENGTH = 12;
    static final int MAP_LENGTH = 16;
    static final int MAPPED_LENGTH = 44;

    private ShmControl()
    {
    }

    static int type(final UnsafeBuffer b, final int length)
    {
        return length >= 4 ? b.getInt(UnixSeqPacket.payloadOffset()) : -1;
    }

    static int hello(final UnsafeBuffer b)
    {
        final int o = UnixSeqPacket.payloadOffset();
        b.putInt(o, HELLO);
        b.putInt(o + 4, ShmRings.VERSION);
        return HELLO_LENGTH;
    }

    static int welcome(final UnsafeBuffer b, final int capacity)
    {
        final int o = UnixSeqPacket.payloadOffset();
        b.putInt(o, WELCOME);
        b.putInt(o + 4, ShmRings.VERSION);
        b.putInt(o + 8, capacity);
        return WELCOME_LENGTH;
    }

    static int map(final UnsafeBuffer b, final int regionId, final long token)
    {
        final int o = UnixSeqPacket.payloadOffset();
        b.putInt(o, MAP);
        b.putInt(o + 4, regionId);
        b.putLong(o + 8, token);
        return MAP_LENGTH;
    }

    static int mapped(final UnsafeBuffer b, final int regionId, final int status, final ShmMemoryRegion region)
    {
        final int o = UnixSeqPacket.payloadOffset();
        b.putInt(o, MAPPED);
        b.putInt(o + 4, regionId);
        b.putInt(o + 8, status);
        b.putLong(o + 12, region == null ? 0 : region.generation());
        b.putLong(o + 20, region == null ? 0 : region.fileOffset());
        b.putLong(o + 28, region == null ? 0 : region.address());
        b.putLong(o + 36, region == null ? 0 : region.length());
        return MAPPED_LENGTH;
    }

    static int refuse(final UnsafeBuffer b, final String reason)
    {
        final int o = UnixSeqPacket.payloadOffset();
        b.putInt(o, REFUSE);
        final byte[] bytes = reason.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        final int n = Math.min(bytes.length, UnixSeqPacket.MAX_MESSAGE - 8);
        b.putInt(o + 4, n);
        b.putBytes(o + 8, bytes, 0, n);
        return 8 + n;
    }

    static String refuseReason(final UnsafeBuffer b, final int length)
    {
        final int o = UnixSeqPacket.payloadOffset();
        final int n = length >= 8 ? Math.min(b.getInt(o + 4), length - 8) : 0;
        return n <= 0 ? "refused" : b.getStringWithoutLengthUtf8(o + 8, n);
    }

    /**
     * Answer the peer's MAP (in {@code control}'s payload) for one of {@code localDomain}'s regions: MAPPED with a
     * read-only descriptor when the token matches, else MAPPED with the refusal. False when the socket is closed.
     */
    static boolean answerMap(final UnixSeqPacket control, final ShmMemoryDomain localDomain)
    {
        final UnsafeBuffer b = control.payload();
        final int o = UnixSeqPacket.payloadOffset();
        final int regionId = b.getInt(o + 4);
        final long token = b.getLong(o + 8);
        final ShmMemoryRegion region = localDomain.lookup(regionId);
        final int status = region == null ? MAPPED_UNKNOWN_REGION :
            region.token() != token ? MAPPED_BAD_TOKEN : MAPPED_OK;
        final int len = mapped(b, regionId, status, status == MAPPED_OK ? region : null);
        return status == MAPPED_OK ? control.send(len, region.readOnlyFd()) : control.send(len);
    }
}
