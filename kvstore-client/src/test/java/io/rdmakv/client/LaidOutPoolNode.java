package io.rdmakv.client;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.rdmakv.client.control.ControlPlaneClient;
import io.rdmakv.protocol.ProtocolLimits;
import io.rdmakv.protocol.layout.IndexBucketFlyweight;
import io.rdmakv.protocol.layout.IndexEntry;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.protocol.layout.PoolHeaderFlyweight;
import io.rdmakv.protocol.layout.SlotOwnershipTable;
import io.rdmakv.protocol.layout.ValueExtentFlyweight;
import io.rdmakv.protocol.wire.ClusterNode;
import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.protocol.wire.MessageDecoder;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.Reject;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.protocol.wire.TransportAddress;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.MemoryAccess;
import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.select.TransportSelector;
import io.rdmakv.transport.tcp.TcpTransport;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A node assembled in the test from real parts, so the client's GET protocol can be tested exactly: a pool laid out
 * by the protocol's flyweights in direct memory and registered REMOTE_READ with the real TCP transport, a worker that
 * answers requests from a map (the "durable store"), and a Netty responder for the handshake. Tests shape the pool
 * directly (tear an extent, collide fingerprints, clear COMPLETE, change the epoch) and count what reached the node.
 */
final class LaidOutPoolNode implements AutoCloseable
{
    static final int POOL_SIZE = 1 << 20;
    static final int BUCKETS = 64;
    static final long EPOCH = 7;
    static final int NODE_ID = 1;

    final int nodeId;

    final Map<String, byte[]> store = new ConcurrentHashMap<>();
    final AtomicInteger requests = new AtomicInteger();
    volatile boolean silent;
    /** A GET or DELETE of this key is never answered (it stays in flight until the client's timeout). */
    volatile String unansweredKey;
    volatile String wrongNodeTarget;
    volatile Reject reject;
    /** What ATTACH is answered with: OK for the issued ticket unless set; null = never answer. */
    volatile Status attachAnswer = Status.OK;
    /** The read lease every answer grants (ms, or ResponseFlyweight.READ_LEASE_NONE / _UNBOUNDED). */
    volatile int readLeaseGrant = ResponseFlyweight.READ_LEASE_UNBOUNDED;
    /** The range epoch its WELCOME's map gives its one range (the ownership words start LIVE at 1). */
    volatile long mapRangeEpoch;
    /** ATTACH messages received. */
    final AtomicInteger attaches = new AtomicInteger();
    /** Data connections that ended (closed by the client, or failed). */
    final AtomicInteger disconnects = new AtomicInteger();

    private final UnsafeBuffer pool;
    private final PoolGeometry geometry = PoolGeometry.plan(POOL_SIZE, BUCKETS);
    private final PoolHeaderFlyweight header = new PoolHeaderFlyweight();
    private final IndexBucketFlyweight bucket = new IndexBucketFlyweight();
    private final ValueExtentFlyweight extent = new ValueExtentFlyweight();
    private long nextExtent;
    private long version;
    private boolean closed;

    private final Transport transport;
    private final MemoryRegion region;
    private final Worker worker;
    private final AgentRunner runner;
    private final Listener listener;
    private final EventLoopGroup controlGroup;
    private final Channel controlChannel;

    LaidOutPoolNode()
    {
        this(NODE_ID);
    }

    LaidOutPoolNode(final int nodeId)
    {
        this.nodeId = nodeId;
        pool = new UnsafeBuffer(BufferUtil.allocateDirectAligned(POOL_SIZE, 4096));
        header.wrap(pool, 0).initialise(geometry, nodeId, EPOCH);
        for (int hashSlot = 0; hashSlot < SlotOwnershipTable.WORD_COUNT; hashSlot++)
        {
            ownership(hashSlot, SlotOwnershipTable.STATE_LIVE, 1);
        }
        nextExtent = geometry.extentsOffset();

        final TransportProvider tcp = TransportSelector.fromClassPath().select("tcp").provider();
        transport = tcp.open(TransportConfig.defaults());
        region = transport.memoryDomain().register(pool.addressOffset(), pool.capacity(),
            EnumSet.of(MemoryAccess.REMOTE_READ));
        worker = transport.createWorker("test-node");
        runner = new AgentRunner(new SleepingMillisIdleStrategy(0), Throwable::printStackTrace, null, worker);
        AgentRunner.startOnThread(runner);
        listener = worker.listen(new InetSocketAddress("127.0.0.1", 0), new RequestAnswerer());

        controlGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        controlChannel = new ServerBootstrap().group(controlGroup).channel(NioServerSocketChannel.class)
            .childHandler(new ChannelInitializer<SocketChannel>()
            {
                @Override
                protected void initChannel(final SocketChannel ch)
                {
                    ch.pipeline().addLast(
                        new LengthFieldBasedFrameDecoder(ControlPlaneClient.LENGTH_PREFIX_ORDER,
                            ControlFrameCodec.MAX_FRAME_LENGTH + 4, 0, 4, 0, 4, true),
                        new LengthFieldPrepender(ControlPlaneClient.LENGTH_PREFIX_ORDER, 4, 0, false),
                        new HandshakeAnswerer());
                }
            })
            .bind("127.0.0.1", 0).syncUninterruptibly().channel();
    }

    HostPort controlAddress()
    {
        return new HostPort("127.0.0.1", ((InetSocketAddress)controlChannel.localAddress()).getPort());
    }

    KvClientBuilder client()
    {
        return KvClient.builder().server(controlAddress().toString()).transport("tcp")
            .getMode(GetMode.ONE_SIDED).requestTimeout(java.time.Duration.ofSeconds(3));
    }

    InetSocketAddress dataAddress()
    {
        return listener.localAddress();
    }

    io.rdmakv.transport.RemoteKey remoteKey()
    {
        return region.remoteKey();
    }

    long poolAddress()
    {
        return pool.addressOffset();
    }

    long registrationCount()
    {
        return transport.memoryDomain().registrationCount();
    }

    /** Put into the durable store only (the pool does not hold it). */
    void storeOnly(final String key, final String value)
    {
        store.put(key, value.getBytes(StandardCharsets.UTF_8));
    }

    /** Put into the store and the pool (extent + index entry), as the server would. Returns the entry written. */
    synchronized long put(final String key, final String value)
    {
        store.put(key, value.getBytes(StandardCharsets.UTF_8));
        final byte[] k = key.getBytes(StandardCharsets.UTF_8);
        final long offset = writeExtent(k, value.getBytes(StandardCharsets.UTF_8));
        final int length = ValueExtentFlyweight.requiredLength(k.length, value.length());
        final long entry = IndexEntry.encode(KeyHash.fingerprint(KeyHash.hash(k)), offset, length);
        publish(KeyHash.primaryBucket(KeyHash.hash(k), BUCKETS), entry);
        return entry;
    }

    /**
     * Put {@code otherKey}'s extent into {@code key}'s primary bucket under {@code key}'s fingerprint: a fingerprint
     * collision the reader must see through by checking the key.
     */
    synchronized void putCollision(final String key, final String otherKey, final String otherValue)
    {
        final byte[] k = key.getBytes(StandardCharsets.UTF_8);
        final byte[] other = otherKey.getBytes(StandardCharsets.UTF_8);
        final long offset = writeExtent(other, otherValue.getBytes(StandardCharsets.UTF_8));
        final long entry = IndexEntry.encode(KeyHash.fingerprint(KeyHash.hash(k)), offset,
            ValueExtentFlyweight.requiredLength(other.length, otherValue.length()));
        publish(KeyHash.primaryBucket(KeyHash.hash(k), BUCKETS), entry);
    }

    /** Flip one value byte of {@code key}'s extent in the pool: a torn read for every reader from now on. */
    synchronized void tear(final long entry)
    {
        final int at = (int)IndexEntry.extentOffset(entry) + ValueExtentFlyweight.HEADER_LENGTH + 1;
        pool.putByte(at, (byte)~pool.getByte(at));
    }

    /**
     * Overwrite {@code entry}'s extent in place (header, key, value, CRC last) with no ordering towards readers: what a
     * buggy writer would do, and the worst case of extent reuse. Readers may see any mix of old and new bytes.
     * Not synchronized: the test's writer thread owns the extent.
     */
    void rewriteInPlace(final long entry, final byte[] key, final byte[] value, final long version)
    {
        final ValueExtentFlyweight writer = new ValueExtentFlyweight();
        writer.wrap(pool, (int)IndexEntry.extentOffset(entry), IndexEntry.extentLength(entry)).write(key, value, version);
    }

    /**
     * Supersede {@code oldEntry} as the server's writer does: a fresh extent with the next version, the old extent
     * marked RETIRED, then the new entry published in the old one's place. Returns the new entry.
     */
    synchronized long replace(final long oldEntry, final String key, final String value)
    {
        store.put(key, value.getBytes(StandardCharsets.UTF_8));
        final byte[] k = key.getBytes(StandardCharsets.UTF_8);
        final long offset = writeExtent(k, value.getBytes(StandardCharsets.UTF_8));
        final long entry = IndexEntry.encode(KeyHash.fingerprint(KeyHash.hash(k)), offset,
            ValueExtentFlyweight.requiredLength(k.length, value.length()));
        retire(oldEntry);
        bucket.wrap(pool, (int)geometry.bucketOffset(KeyHash.primaryBucket(KeyHash.hash(k), BUCKETS)));
        for (int i = 0; i < IndexBucketFlyweight.ENTRY_COUNT; i++)
        {
            if (bucket.entry(i) == oldEntry)
            {
                bucket.publish(i, entry);
                return entry;
            }
        }
        throw new IllegalStateException("slot to replace not found: " + IndexEntry.toString(oldEntry));
    }

    /** Mark {@code entry}'s extent RETIRED, as the writer does before it publishes whatever supersedes it. */
    synchronized void retire(final long entry)
    {
        extent.wrap(pool, (int)IndexEntry.extentOffset(entry), IndexEntry.extentLength(entry)).retire();
    }

    /** Clear the index entry of {@code key} (delete, eviction): its extent marked RETIRED first, as a writer does. */
    synchronized void remove(final String key, final long entry)
    {
        store.remove(key);
        retire(entry);
        final byte[] k = key.getBytes(StandardCharsets.UTF_8);
        bucket.wrap(pool, (int)geometry.bucketOffset(KeyHash.primaryBucket(KeyHash.hash(k), BUCKETS)));
        for (int i = 0; i < IndexBucketFlyweight.ENTRY_COUNT; i++)
        {
            if (bucket.entry(i) == entry)
            {
                bucket.publish(i, IndexEntry.EMPTY);
                return;
            }
        }
        throw new IllegalStateException("slot to clear not found: " + IndexEntry.toString(entry));
    }

    /** Emulated reads the node's transport answered: each one-sided read a client made. */
    long readsServed()
    {
        return ((TcpTransport)transport).emulatedReadsServed();
    }

    /** Overwrite the layout version in the pool header (a node laid out by another release). */
    void layoutVersion(final int version)
    {
        pool.putInt(PoolHeaderFlyweight.VERSION_OFFSET, version, ByteOrder.LITTLE_ENDIAN);
    }

    /** Publish {@code hashSlot}'s ownership word, as a node does when its cluster view changes. */
    void ownership(final int hashSlot, final int state, final long epoch)
    {
        SlotOwnershipTable.publishAt(pool, (int)SlotOwnershipTable.poolOffsetOf(hashSlot),
            SlotOwnershipTable.encode(hashSlot, state, epoch));
    }

    /** The hash slot of {@code key}. */
    static int hashSlot(final String key)
    {
        return KeyHash.hashSlot(key.getBytes(StandardCharsets.UTF_8));
    }

    void complete(final boolean complete)
    {
        header.wrap(pool, 0).complete(complete);
    }

    void epoch(final long epoch)
    {
        pool.putLongVolatile(PoolHeaderFlyweight.EPOCH_OFFSET, epoch);
    }

    private long writeExtent(final byte[] key, final byte[] value)
    {
        final int length = ValueExtentFlyweight.requiredLength(key.length, value.length);
        final long offset = nextExtent;
        nextExtent += length;
        extent.wrap(pool, (int)offset, length).write(key, value, ++version);
        return offset;
    }

    private void publish(final long bucketIndex, final long entry)
    {
        bucket.wrap(pool, (int)geometry.bucketOffset(bucketIndex));
        final int free = bucket.findEmpty();
        if (free < 0)
        {
            throw new IllegalStateException("test bucket full");
        }
        bucket.publish(free, entry);
    }

    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        controlChannel.close().syncUninterruptibly();
        controlGroup.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
        listener.close();
        runner.close();
        region.close();
        transport.close();
    }

    /** Stop answering anything and drop every connection, like a crashed node. */
    void crash()
    {
        close();
    }

    private Welcome welcome()
    {
        final int port = listener.localAddress().getPort();
        return new Welcome(nodeId, geometry, region.remoteKey().pack(), EPOCH, pool.addressOffset(),
            List.of(new TransportAddress("tcp", "127.0.0.1", port, new byte[0])),
            ProtocolLimits.MAX_KEY_LENGTH, 64 * 1024,
            List.of(new ClusterNode(nodeId, "127.0.0.1", controlAddress().port(), 0,
                ProtocolLimits.HASH_SLOT_COUNT - 1, mapRangeEpoch, List.of())), ISSUED_TICKET);
    }

    /** The session ticket this test node hands out and accepts (a real node issues a fresh one per WELCOME). */
    static final byte[] ISSUED_TICKET = {7, 7, 7, 7, 7, 7, 7, 7, 1, 2, 3, 4, 5, 6, 7, 8};

    private final class HandshakeAnswerer extends SimpleChannelInboundHandler<ByteBuf>
    {
        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final ByteBuf msg)
        {
            final byte[] bytes = new byte[msg.readableBytes()];
            msg.readBytes(bytes);
            ControlFrameCodec.decode(bytes);
            final Reject r = reject;
            final byte[] answer = ControlFrameCodec.encode(r != null ? r : welcome());
            ctx.writeAndFlush(ctx.alloc().buffer().writeBytes(answer));
        }
    }

    /** Answers requests from {@link #store}, as a server's RPC path would. */
    private final class RequestAnswerer implements EndpointHandler
    {
        private final MessageDecoder decoder = new MessageDecoder();
        private final ExpandableArrayBuffer out = new ExpandableArrayBuffer(1024);
        private final ResponseFlyweight response = new ResponseFlyweight();

        @Override
        public void onDisconnected(final Endpoint endpoint, final TransportStatus status, final String detail)
        {
            disconnects.incrementAndGet();
        }

        @Override
        public void onMessage(final Endpoint endpoint, final DirectBuffer buffer, final int offset, final int length)
        {
            final MessageType type = decoder.decode(buffer, offset, length);
            out.checkLimit(ResponseFlyweight.VALUE_OFFSET + 64 * 1024);
            response.wrap(out, 0, out.capacity());
            response.header(MessageType.RESPONSE, decoder.correlationId());
            if (type == MessageType.ATTACH_REQUEST)
            {
                // Every WELCOME of this node carries ISSUED_TICKET; a node accepts only the ticket it issued.
                attaches.incrementAndGet();
                final boolean valid = java.util.Arrays.equals(ISSUED_TICKET, decoder.attachRequest().ticket());
                final Status answer = attachAnswer;
                if (answer != null)
                {
                    response.status(valid ? answer : Status.UNAUTHENTICATED).readLeaseMillis(readLeaseGrant);
                    endpoint.send(out, 0, response.encodedLength(), null);
                }
                return;
            }
            requests.incrementAndGet();
            if (silent)
            {
                return;
            }
            if (wrongNodeTarget != null)
            {
                response.status(Status.WRONG_NODE).text(wrongNodeTarget);
            }
            else if (type == MessageType.STATS_REQUEST)
            {
                response.status(Status.OK).text("keys=" + store.size() + "\nrequests=" + requests.get());
            }
            else if (type == MessageType.PUT_REQUEST)
            {
                final var put = decoder.putRequest();
                final byte[] k = new byte[put.keyLength()];
                final byte[] v = new byte[put.valueLength()];
                buffer.getBytes(put.keyIndex(), k);
                buffer.getBytes(put.valueIndex(), v);
                store.put(new String(k, StandardCharsets.UTF_8), v);
                response.status(Status.OK);
            }
            else
            {
                final var request = decoder.keyRequest();
                final byte[] k = new byte[request.keyLength()];
                buffer.getBytes(request.keyIndex(), k);
                final String key = new String(k, StandardCharsets.UTF_8);
                if (key.equals(unansweredKey))
                {
                    return;
                }
                final byte[] v = type == MessageType.DELETE_REQUEST ? store.remove(key) : store.get(key);
                if (v == null)
                {
                    response.status(Status.NOT_FOUND);
                }
                else
                {
                    response.status(Status.OK);
                    if (type == MessageType.GET_REQUEST)
                    {
                        response.value(v);
                    }
                }
            }
            response.readLeaseMillis(readLeaseGrant);
            endpoint.send(out, 0, response.encodedLength(), null);
        }
    }

    static ByteBuffer direct(final String s)
    {
        final byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocateDirect(b.length).order(ByteOrder.LITTLE_ENDIAN).put(b).flip();
    }
}
