package io.rdmakv.protocol.wire;

import java.nio.charset.StandardCharsets;

/**
 * One message of a SCRAM-SHA-256 exchange on a control connection, after a HELLO that carried the client-first
 * message: node to client the challenge ({@code r=,s=,i=}), client to node the proof ({@code c=,r=,p=}), node to
 * client the server-final message ({@code v=}), which a WELCOME follows. RFC 5802's text, UTF-8.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                  Control frame header (8 B, type SCRAM)      ...  0
 *  +-------------------------------+-------------------------------+
 *  |  Message length (u16)         |  Message (UTF-8)             ...  8
 *  +-------------------------------+-------------------------------+
 * </pre>
 *
 * @param message the SCRAM message.
 */
public record ScramMessage(String message) implements ControlFrame
{
    @Override
    public int frameType()
    {
        return TYPE_SCRAM;
    }

    public byte[] bytes()
    {
        return message.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString()
    {
        // A proof is worth nothing outside its exchange, but there is no reason to print it.
        return "ScramMessage{" + message.length() + " chars}";
    }
}
