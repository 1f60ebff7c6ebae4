package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.ProtocolLimits;
import io.rdmakv.protocol.layout.PoolGeometry;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Encodes and decodes {@link ControlFrame}s (the bytes after Netty's u32 length prefix). Decoding checks the frame
 * size, the magic, the version, the type, every count against the bytes remaining and every length before it reads;
 * anything wrong is a {@link ProtocolException} (answer it with a {@link Reject} and close). Control path only:
 * it allocates records and strings.
 */
public final class ControlFrameCodec
{
    /** "RKVC" as four ASCII bytes read little-endian. */
    public static final int MAGIC = 'R' | 'K' << 8 | 'V' << 16 | 'C' << 24;
    /** 2: cluster map entries carry range epoch and backups, and the WELCOME the cluster epoch. */
    public static final int PROTOCOL_VERSION = 2;
    public static final int HEADER_LENGTH = 8;
    public static final int MAX_FRAME_LENGTH = ProtocolLimits.MAX_CONTROL_FRAME_LENGTH;

    private static final int MAX_TRANSPORT_NAME_LENGTH = 32;
    private static final int MIN_TRANSPORT_ADDRESS_LENGTH = 1 + 1 + 1 + 2 + 2;
    private static final int MIN_CLUSTER_NODE_LENGTH = 4 + 2 + 2 + 2 + 1 + 8 + 1;
    /** Node id, control port, host length (an empty host). */
    private static final int MIN_MEMBER_LENGTH = 4 + 2 + 1;

    private ControlFrameCodec()
    {
    }

    /**
     * Encode {@code frame} at {@code offset}.
     *
     * @return the frame length (what goes into the length prefix).
     * @throws ProtocolException {@link ErrorCode#FRAME_TOO_LARGE} when it would exceed {@link #MAX_FRAME_LENGTH} or
     *                           the buffer, {@link ErrorCode#BAD_LENGTH} when a field exceeds its length prefix.
     */
    public static int encode(final ControlFrame frame, final MutableDirectBuffer buffer, final int offset)
    {
        final FrameWriter w = new FrameWriter(buffer, offset, MAX_FRAME_LENGTH);
        final int version = frame instanceof Hello h ? h.protocolVersion() : PROTOCOL_VERSION;
        w.i32(MAGIC).u16(version).u8(frame.frameType()).u8(0);
        if (frame instanceof Hello hello)
        {
            encodeHello(hello, w);
        }
        else if (frame instanceof Welcome welcome)
        {
            encodeWelcome(welcome, w);
        }
        else if (frame instanceof Admin admin)
        {
            w.blob(admin.credential(), "credential").blob(admin.command().getBytes(StandardCharsets.UTF_8),
                "admin command");
        }
        else if (frame instanceof AdminReply reply)
        {
            w.u8(reply.ok() ? 1 : 0).blob(reply.text().getBytes(StandardCharsets.UTF_8), "admin reply");
        }
        else if (frame instanceof ScramMessage scram)
        {
            w.blob(scram.bytes(), "SCRAM message");
        }
        else if (frame instanceof Reject reject)
        {
            final byte[] message = reject.message().getBytes(StandardCharsets.UTF_8);
            w.u16(reject.status().code()).blob(message, "reject message");
        }
        return w.length();
    }

    /** Encode into a new array of exactly the frame's length. */
    public static byte[] encode(final ControlFrame frame)
    {
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[MAX_FRAME_LENGTH]);
        final int length = encode(frame, scratch, 0);
        final byte[] bytes = new byte[length];
        scratch.getBytes(0, bytes);
        return bytes;
    }

    /**
     * Decode one frame of exactly {@code length} bytes.
     *
     * @throws ProtocolException for anything malformed: {@link ErrorCode#FRAME_TOO_LARGE},
     *                           {@link ErrorCode#TRUNCATED}, {@link ErrorCode#BAD_MAGIC},
     *                           {@link ErrorCode#UNSUPPORTED_VERSION}, {@link ErrorCode#UNKNOWN_TYPE},
     *                           {@link ErrorCode#BAD_LENGTH}, {@link ErrorCode#BAD_GEOMETRY}, {@link ErrorCode#MALFORMED}.
     */
    public static ControlFrame decode(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length > MAX_FRAME_LENGTH)
        {
            throw new ProtocolException(ErrorCode.FRAME_TOO_LARGE,
                "control frame of " + length + " bytes exceeds " + MAX_FRAME_LENGTH);
        }
        final FrameReader r = new FrameReader(buffer, offset, length);
        final int magic = r.i32("magic");
        if (magic != MAGIC)
        {
            throw new ProtocolException(ErrorCode.BAD_MAGIC, "control frame magic 0x" + Integer.toHexString(magic));
        }
        final int version = r.u16("protocol version");
        final int type = r.u8("frame type");
        r.u8("reserved");
        // A HELLO of another version must still decode, so the server can answer it with a precise REJECT.
        if (type == ControlFrame.TYPE_HELLO)
        {
            return decodeHello(version, r);
        }
        if (version != PROTOCOL_VERSION)
        {
            throw new ProtocolException(ErrorCode.UNSUPPORTED_VERSION,
                "control protocol version " + version + ", expected " + PROTOCOL_VERSION);
        }
        switch (type)
        {
            case ControlFrame.TYPE_WELCOME:
                return decodeWelcome(r);
            case ControlFrame.TYPE_REJECT:
                return decodeReject(r);
            case ControlFrame.TYPE_ADMIN:
            {
                final byte[] credential = r.bytes(r.u16("credential length"), "credential");
                final String command = r.utf8(r.u16("command length"), "admin command");
                r.expectEnd("ADMIN");
                return new Admin(credential, command);
            }
            case ControlFrame.TYPE_SCRAM:
            {
                final String message = r.utf8(r.u16("SCRAM message length"), "SCRAM message");
                r.expectEnd("SCRAM");
                return new ScramMessage(message);
            }
            case ControlFrame.TYPE_ADMIN_REPLY:
            {
                final int ok = r.u8("ok");
                if (ok > 1)
                {
                    throw new ProtocolException(ErrorCode.MALFORMED, "admin reply ok flag " + ok);
                }
                final String text = r.utf8(r.u16("text length"), "admin reply");
                r.expectEnd("ADMIN_REPLY");
                return new AdminReply(ok == 1, text);
            }
            default:
                throw new ProtocolException(ErrorCode.UNKNOWN_TYPE, "control frame type " + type);
        }
    }

    public static ControlFrame decode(final byte[] frame)
    {
        return decode(new UnsafeBuffer(frame), 0, frame.length);
    }

    private static void encodeHello(final Hello hello, final FrameWriter w)
    {
        if (hello.transports().size() > 255)
        {
            throw new ProtocolException(ErrorCode.BAD_LENGTH, "more than 255 transports");
        }
        w.u8(hello.transports().size());
        for (final String transport : hello.transports())
        {
            checkTransportName(transport.getBytes(StandardCharsets.UTF_8).length, transport);
            w.shortString(transport, "transport name");
        }
        w.blob(hello.credential(), "credential");
        if (hello.scramFirst().length > 0)
        {
            w.blob(hello.scramFirst(), "SCRAM client-first message"); // absent otherwise: older nodes read it as before
        }
    }

    private static Hello decodeHello(final int version, final FrameReader r)
    {
        final int count = r.u8("transport count");
        r.checkCount(count, 2, "transport");
        final List<String> transports = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            final int nameLength = r.u8("transport name length");
            checkTransportName(nameLength, null);
            transports.add(r.utf8(nameLength, "transport name"));
        }
        final byte[] credential = r.bytes(r.u16("credential length"), "credential");
        final byte[] scramFirst = r.remaining() > 0 ? r.bytes(r.u16("SCRAM message length"), "SCRAM message") :
            new byte[0];
        r.expectEnd("HELLO");
        return new Hello(version, transports, credential, scramFirst);
    }

    private static void encodeWelcome(final Welcome welcome, final FrameWriter w)
    {
        w.i32(welcome.nodeId()).i32(welcome.maxKeyLength()).i32(welcome.maxValueLength()).i32(0);
        w.i64(welcome.layoutEpoch()).i64(welcome.poolHeaderAddress());
        final PoolGeometry g = welcome.geometry();
        w.i64(g.poolSize()).i64(g.indexOffset()).i64(g.bucketCount()).i64(g.extentsOffset()).i64(g.extentsLength());
        w.bytes(welcome.sessionTicket());
        w.blob(welcome.remoteKey(), "remote key");
        checkCount(welcome.transports().size(), "transport addresses");
        w.u16(welcome.transports().size());
        for (final TransportAddress a : welcome.transports())
        {
            w.shortString(a.transport(), "transport name").shortString(a.host(), "host").u16(a.port())
                .blob(a.blob(), "transport blob");
        }
        checkCount(welcome.clusterMap().size(), "cluster nodes");
        w.u16(welcome.clusterMap().size());
        for (final ClusterNode n : welcome.clusterMap())
        {
            w.i32(n.nodeId()).u16(n.firstSlot()).u16(n.lastSlot()).u16(n.controlPort()).shortString(n.host(), "host");
            w.i64(n.rangeEpoch()).u8(n.backups().size());
            for (final int backup : n.backups())
            {
                w.i32(backup);
            }
        }
        w.i64(welcome.clusterEpoch());
        w.u16(welcome.members().size());
        for (final MemberAddress m : welcome.members())
        {
            w.i32(m.nodeId()).u16(m.controlPort()).shortString(m.host(), "host");
        }
    }

    private static Welcome decodeWelcome(final FrameReader r)
    {
        final int nodeId = r.i32("node id");
        final int maxKeyLength = r.i32("max key length");
        final int maxValueLength = r.i32("max value length");
        r.i32("reserved");
        if (maxKeyLength < 0 || maxKeyLength > ProtocolLimits.MAX_KEY_LENGTH ||
            maxValueLength < 0 || maxValueLength > ProtocolLimits.MAX_FORMAT_VALUE_LENGTH)
        {
            throw new ProtocolException(ErrorCode.MALFORMED,
                "limits out of range: max key " + maxKeyLength + ", max value " + maxValueLength);
        }
        final long epoch = r.i64("layout epoch");
        final long poolHeaderAddress = r.i64("pool header address");
        final PoolGeometry geometry = new PoolGeometry(r.i64("pool size"), r.i64("index offset"),
            r.i64("bucket count"), r.i64("extents offset"), r.i64("extents length"));
        final byte[] sessionTicket = r.bytes(Welcome.SESSION_TICKET_LENGTH, "session ticket");
        final byte[] remoteKey = r.bytes(r.u16("remote key length"), "remote key");

        final int transportCount = r.u16("transport address count");
        r.checkCount(transportCount, MIN_TRANSPORT_ADDRESS_LENGTH, "transport address");
        final List<TransportAddress> transports = new ArrayList<>(transportCount);
        for (int i = 0; i < transportCount; i++)
        {
            final int nameLength = r.u8("transport name length");
            checkTransportName(nameLength, null);
            final String name = r.utf8(nameLength, "transport name");
            final String host = r.utf8(r.u8("host length"), "host");
            final int port = r.u16("port");
            final byte[] blob = r.bytes(r.u16("transport blob length"), "transport blob");
            transports.add(new TransportAddress(name, host, port, blob));
        }

        final int nodeCount = r.u16("cluster node count");
        r.checkCount(nodeCount, MIN_CLUSTER_NODE_LENGTH, "cluster node");
        final List<ClusterNode> clusterMap = new ArrayList<>(nodeCount);
        for (int i = 0; i < nodeCount; i++)
        {
            final int id = r.i32("cluster node id");
            final int firstSlot = r.u16("first slot");
            final int lastSlot = r.u16("last slot");
            final int controlPort = r.u16("control port");
            final String host = r.utf8(r.u8("host length"), "host");
            if (firstSlot > lastSlot || lastSlot >= ProtocolLimits.HASH_SLOT_COUNT)
            {
                throw new ProtocolException(ErrorCode.MALFORMED,
                    "cluster node " + id + " slot range [" + firstSlot + ", " + lastSlot + "] invalid");
            }
            final long rangeEpoch = r.i64("range epoch");
            if (rangeEpoch < 0)
            {
                throw new ProtocolException(ErrorCode.MALFORMED, "range epoch " + rangeEpoch + " < 0");
            }
            final int backupCount = r.u8("backup count");
            r.checkCount(backupCount, 4, "backup id");
            final List<Integer> backups = new ArrayList<>(backupCount);
            for (int b = 0; b < backupCount; b++)
            {
                backups.add(r.i32("backup node id"));
            }
            clusterMap.add(new ClusterNode(id, host, controlPort, firstSlot, lastSlot, rangeEpoch, backups));
        }
        final long clusterEpoch = r.i64("cluster epoch");
        if (clusterEpoch < 0)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "cluster epoch " + clusterEpoch + " < 0");
        }
        final int memberCount = r.u16("member count");
        r.checkCount(memberCount, MIN_MEMBER_LENGTH, "member");
        final List<MemberAddress> members = new ArrayList<>(memberCount);
        for (int i = 0; i < memberCount; i++)
        {
            final int id = r.i32("member id");
            final int controlPort = r.u16("member control port");
            members.add(new MemberAddress(id, r.utf8(r.u8("host length"), "host"), controlPort));
        }
        r.expectEnd("WELCOME");
        return new Welcome(nodeId, geometry, remoteKey, epoch, poolHeaderAddress, transports,
            maxKeyLength, maxValueLength, clusterMap, sessionTicket, clusterEpoch, members);
    }

    private static Reject decodeReject(final FrameReader r)
    {
        final int code = r.u16("status");
        final Status status = Status.fromCode(code);
        if (status == null)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "unknown status code " + code);
        }
        final String message = r.utf8(r.u16("message length"), "reject message");
        r.expectEnd("REJECT");
        return new Reject(status, message);
    }

    private static void checkTransportName(final int length, final String name)
    {
        if (length < 1 || length > MAX_TRANSPORT_NAME_LENGTH)
        {
            throw new ProtocolException(ErrorCode.BAD_LENGTH, "transport name " + (name == null ? "" : name + " ") +
                "of " + length + " bytes not in 1.." + MAX_TRANSPORT_NAME_LENGTH);
        }
    }

    private static void checkCount(final int count, final String what)
    {
        if (count > 0xFFFF)
        {
            throw new ProtocolException(ErrorCode.BAD_LENGTH, "more than 65535 " + what);
        }
    }
}
