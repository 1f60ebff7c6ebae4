package io.rdmakv.transport.tls;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;

import java.util.List;
import java.util.function.BiConsumer;

/**
 * The first handler of an accepted connection: it looks at the peer's first bytes (a TLS record header is 5) and
 * tells a TLS peer from a plaintext one, so a mismatch is refused at once with a clear reason instead of a decoder's
 * confusion or a hang. On a TLS port ({@link #tlsOnly}) a TLS peer gets the {@link SslHandler} in the gate's place;
 * on a plaintext port ({@link #plaintextOnly}) a plaintext peer gets the rest of the pipeline as is. A mismatch is
 * handed to {@code onMismatch} (with a sentence saying what happened), which may write a plaintext answer before the
 * connection is closed. Either way the gate leaves the pipeline after the first bytes: no cost per frame.
 */
public final class TlsGate extends ByteToMessageDecoder
{
    /** Bytes of a TLS record header: type, version (2), length (2). */
    private static final int RECORD_HEADER_BYTES = 5;

    private final ChannelHandler ssl;
    private final BiConsumer<ChannelHandlerContext, String> onMismatch;

    private TlsGate(final ChannelHandler ssl, final BiConsumer<ChannelHandlerContext, String> onMismatch)
    {
        this.ssl = ssl;
        this.onMismatch = onMismatch;
    }

    /** A TLS port: a TLS peer continues through {@code ssl}; a plaintext one is handed to {@code onMismatch}. */
    public static TlsGate tlsOnly(final SslHandler ssl, final BiConsumer<ChannelHandlerContext, String> onMismatch)
    {
        return new TlsGate(ssl, onMismatch);
    }

    /** A plaintext port: a peer that opens with a TLS handshake is handed to {@code onMismatch}. */
    public static TlsGate plaintextOnly(final BiConsumer<ChannelHandlerContext, String> onMismatch)
    {
        return new TlsGate(null, onMismatch);
    }

    @Override
    protected void decode(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out)
    {
        if (in.readableBytes() < RECORD_HEADER_BYTES)
        {
            return;
        }
        final boolean tls = SslHandler.isEncrypted(in, false);
        if (tls == (ssl != null))
        {
            // What is cumulated so far goes on to the next handler when this one leaves.
            if (ssl != null)
            {
                ctx.pipeline().replace(this, "tls", ssl);
            }
            else
            {
                ctx.pipeline().remove(this);
            }
            return;
        }
        in.skipBytes(in.readableBytes());
        onMismatch.accept(ctx, tls ?
            "a TLS client on a plaintext port (this side has no TLS certificate)" :
            "a plaintext client on a TLS port (TLSv1.3 only: the client needs the CA that signs this side's certificate)");
        ctx.close();
    }
}
