package io.rdmakv.protocol;

/**
 * A buffer that a flyweight or decoder refused: too short, a length field that does not fit, an unknown version or
 * type. Thrown instead of letting an {@link IndexOutOfBoundsException} escape, so a peer's bad input is always a typed,
 * reportable error. Well-formed input never throws, so this stays off the hot path.
 */
public class ProtocolException extends RuntimeException
{
    private final ErrorCode errorCode;

    public ProtocolException(final ErrorCode errorCode, final String message)
    {
        super(errorCode.name() + ": " + message);
        this.errorCode = errorCode;
    }

    public ErrorCode errorCode()
    {
        return errorCode;
    }
}
