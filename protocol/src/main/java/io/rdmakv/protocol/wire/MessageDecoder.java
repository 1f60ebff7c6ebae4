package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.DirectBuffer;

/**
 * The entry point for a received data-plane message (Aeron's adapter role): validates the header against the received
 * length, then the body of its type, and leaves the matching flyweight wrapped over it. Never trusts a length field;
 * anything malformed becomes a {@link ProtocolException} with its {@link ErrorCode}, never an
 * {@link IndexOutOfBoundsException}. Map the code to an answer with {@link Status#of(ErrorCode)}.
 * Not thread-safe: one per receiving thread. No allocation for well-formed messages.
 *
 * <pre>
 *   final MessageType type = decoder.decode(buffer, offset, length);
 *   switch (type) { case GET_REQUEST: handleGet(decoder.keyRequest()); ... }
 * </pre>
 */
public final class MessageDecoder
{
    private final MessageHeaderFlyweight header = new MessageHeaderFlyweight();
    private final KeyRequestFlyweight keyRequest = new KeyRequestFlyweight();
    private final PutRequestFlyweight putRequest = new PutRequestFlyweight();
    private final ResponseFlyweight response = new ResponseFlyweight();
    private final AttachRequestFlyweight attachRequest = new AttachRequestFlyweight();
    private final ReplicateRequestFlyweight replicateRequest = new ReplicateRequestFlyweight();
    private final ScanRequestFlyweight scanRequest = new ScanRequestFlyweight();
    private final KeyScanRequestFlyweight keyScanRequest = new KeyScanRequestFlyweight();
    private final RecordWriteRequestFlyweight recordWriteRequest = new RecordWriteRequestFlyweight();
    private final BatchWriteRequestFlyweight batchWriteRequest = new BatchWriteRequestFlyweight();
    private long correlationId;

    /**
     * Validate a received message of exactly {@code length} bytes.
     *
     * @return its type; the flyweight for it ({@link #keyRequest()}, {@link #putRequest()}, {@link #response()},
     *         {@link #attachRequest()}, or just {@link #header()} for STATS) is wrapped over the message.
     * @throws ProtocolException when anything is malformed; {@link #correlationId()} still holds the correlation id
     *                           if at least a header was received (0 otherwise), so the sender can be answered.
     */
    public MessageType decode(final DirectBuffer buffer, final int offset, final int length)
    {
        correlationId = 0;
        header.wrap(buffer, offset, length);
        correlationId = header.correlationId();
        header.validate();
        final MessageType type = header.type();
        switch (type)
        {
            case GET_REQUEST:
            case DELETE_REQUEST:
                keyRequest.wrap(buffer, offset, length).validate();
                break;
            case PUT_REQUEST:
                putRequest.wrap(buffer, offset, length).validate();
                break;
            case RESPONSE:
                response.wrap(buffer, offset, length).validate();
                break;
            case ATTACH_REQUEST:
                attachRequest.wrap(buffer, offset, length).validate();
                break;
            case REPLICATE_REQUEST:
                replicateRequest.wrap(buffer, offset, length).validate();
                break;
            case SCAN_REQUEST:
                scanRequest.wrap(buffer, offset, length).validate();
                break;
            case KEY_SCAN_REQUEST:
                keyScanRequest.wrap(buffer, offset, length).validate();
                break;
            case RECORD_WRITE_REQUEST:
                recordWriteRequest.wrap(buffer, offset, length).validate();
                break;
            case BATCH_WRITE_REQUEST:
                batchWriteRequest.wrap(buffer, offset, length).validate();
                break;
            case STATS_REQUEST:
                if (header.bodyLength() != 0)
                {
                    throw new ProtocolException(ErrorCode.BAD_LENGTH,
                        "stats request carries no body, got " + header.bodyLength() + " bytes");
                }
                break;
            default:
                throw new ProtocolException(ErrorCode.UNKNOWN_TYPE, "message type " + type);
        }
        return type;
    }

    /** Correlation id of the last message given to {@link #decode}, even when it failed after the header. */
    public long correlationId()
    {
        return correlationId;
    }

    public MessageHeaderFlyweight header()
    {
        return header;
    }

    public KeyRequestFlyweight keyRequest()
    {
        return keyRequest;
    }

    public PutRequestFlyweight putRequest()
    {
        return putRequest;
    }

    public ResponseFlyweight response()
    {
        return response;
    }

    public AttachRequestFlyweight attachRequest()
    {
        return attachRequest;
    }

    public ReplicateRequestFlyweight replicateRequest()
    {
        return replicateRequest;
    }

    public ScanRequestFlyweight scanRequest()
    {
        return scanRequest;
    }

    public KeyScanRequestFlyweight keyScanRequest()
    {
        return keyScanRequest;
    }

    public RecordWriteRequestFlyweight recordWriteRequest()
    {
        return recordWriteRequest;
    }

    public BatchWriteRequestFlyweight batchWriteRequest()
    {
        return batchWriteRequest;
    }
}
