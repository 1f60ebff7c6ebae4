package io.rdmakv.server.resp;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.redis.ArrayHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringHeaderRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.util.ReferenceCountUtil;

/**
 * Between Netty's {@code RedisDecoder} and its aggregators: refuses a bulk string longer than the listener's bound
 * and an array with more elements than its bound before anything is buffered or allocated for them (the decoder alone
 * accepts 512 MiB bulks, and the array aggregator sizes its list from the header). Redis's words: {@code invalid bulk
 * length}, {@code invalid multibulk length}.
 */
final class RespFrameGuard extends ChannelInboundHandlerAdapter
{
    private final long maxBulkBytes;
    private final long maxArguments;

    RespFrameGuard(final long maxBulkBytes, final long maxArguments)
    {
        this.maxBulkBytes = maxBulkBytes;
        this.maxArguments = maxArguments;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (msg instanceof BulkStringHeaderRedisMessage bulk && bulk.bulkStringLength() > maxBulkBytes ||
            msg instanceof FullBulkStringRedisMessage full && full.content().readableBytes() > maxBulkBytes)
        {
            ReferenceCountUtil.release(msg);
            throw new RespProtocolException("invalid bulk length");
        }
        if (msg instanceof ArrayHeaderRedisMessage array && array.length() > maxArguments)
        {
            ReferenceCountUtil.release(msg);
            throw new RespProtocolException("invalid multibulk length");
        }
        ctx.fireChannelRead(msg);
    }

    /** A frame the listener will not read on: the connection gets {@code -ERR Protocol error: ...} and is closed. */
    static final class RespProtocolException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        RespProtocolException(final String message)
        {
            super(message, null, false, false);
        }
    }
}
