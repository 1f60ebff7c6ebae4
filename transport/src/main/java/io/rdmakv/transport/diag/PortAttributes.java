package io.rdmakv.transport.diag;

/**
 * Port attributes that sysfs does not show and only {@code ibv_query_port} answers.
 *
 * @param activeMtuBytes the active MTU in bytes (256..4096), the one queue pairs on this port use.
 * @param maxMtuBytes    the largest MTU the port supports, in bytes.
 */
public record PortAttributes(int activeMtuBytes, int maxMtuBytes)
{
}
