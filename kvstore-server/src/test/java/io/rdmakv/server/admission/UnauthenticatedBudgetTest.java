package io.rdmakv.server.admission;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UnauthenticatedBudgetTest
{
    private static final long SECOND = 1_000_000_000L;

    @Test
    void shouldShedTheOldestWhenTheBudgetIsFullRatherThanRefuseTheNewcomer() throws Exception
    {
        final UnauthenticatedBudget<String> budget = new UnauthenticatedBudget<>(3, 10, 5 * SECOND);
        assertNull(budget.admit("a", ip("10.0.0.1"), 1));
        assertNull(budget.admit("b", ip("10.0.0.2"), 2));
        assertNull(budget.admit("c", ip("10.0.0.3"), 3));
        assertEquals("a", budget.admit("d", ip("10.0.0.4"), 4));
        assertFalse(budget.isWaiting("a"));
        assertTrue(budget.isWaiting("d"));
        assertEquals(3, budget.size());
        // One that authenticated leaves the budget: the next newcomer sheds nobody.
        assertTrue(budget.authenticated("b"));
        assertNull(budget.admit("e", ip("10.0.0.5"), 5));
        assertEquals("c", budget.admit("f", ip("10.0.0.6"), 6));
    }

    @Test
    void shouldShedTheOldestOfTheSameSourceWhenItsBoundIsFull() throws Exception
    {
        final UnauthenticatedBudget<String> budget = new UnauthenticatedBudget<>(100, 2, 5 * SECOND);
        assertNull(budget.admit("other", ip("10.0.0.9"), 0));
        assertNull(budget.admit("a1", ip("10.0.0.1"), 1));
        assertNull(budget.admit("a2", ip("10.0.0.1"), 2));
        assertEquals("a1", budget.admit("a3", ip("10.0.0.1"), 3), "its own oldest, not the oldest of all");
        assertTrue(budget.isWaiting("other"));
        assertEquals(2, budget.sizeOf(ip("10.0.0.1")));
        assertTrue(budget.remove("a2"));
        assertNull(budget.admit("a4", ip("10.0.0.1"), 4));
    }

    @Test
    void shouldCountAnIpv6SlashSixtyFourAsOneSource() throws Exception
    {
        final InetAddress a = SourceAddress.of(new InetSocketAddress(ip("2001:db8::1"), 1));
        final InetAddress b = SourceAddress.of(new InetSocketAddress(ip("2001:db8::ffff:2"), 1));
        final InetAddress c = SourceAddress.of(new InetSocketAddress(ip("2001:db8:0:1::1"), 1));
        assertEquals(a, b);
        assertFalse(a.equals(c));
        assertEquals(ip("10.1.2.3"), SourceAddress.of(new InetSocketAddress(ip("10.1.2.3"), 9)));
    }

    @Test
    void shouldHandBackExactlyTheConnectionsPastTheDeadlineOldestFirst() throws Exception
    {
        final UnauthenticatedBudget<String> budget = new UnauthenticatedBudget<>(10, 10, 5 * SECOND);
        budget.admit("a", ip("10.0.0.1"), 0);
        budget.admit("b", ip("10.0.0.1"), 2 * SECOND);
        budget.admit("c", ip("10.0.0.1"), 4 * SECOND);
        assertEquals(5 * SECOND, budget.nextDeadlineNanos());
        assertEquals(List.of(), budget.overdue(5 * SECOND - 1));
        assertEquals(List.of("a"), budget.overdue(5 * SECOND));
        assertEquals(List.of("b", "c"), budget.overdue(9 * SECOND));
        assertEquals(0, budget.size());
        assertEquals(0, budget.sizeOf(ip("10.0.0.1")));
        assertEquals(Long.MAX_VALUE, budget.nextDeadlineNanos());
    }

    @Test
    void shouldForgetAShedConnection() throws Exception
    {
        final UnauthenticatedBudget<String> budget = new UnauthenticatedBudget<>(1, 1, SECOND);
        budget.admit("a", ip("10.0.0.1"), 0);
        assertSame("a", budget.admit("b", ip("10.0.0.1"), 1));
        assertFalse(budget.remove("a"), "a shed connection is not waiting any more");
        assertFalse(budget.authenticated("a"));
    }

    private static InetAddress ip(final String literal) throws UnknownHostException
    {
        return InetAddress.getByName(literal);
    }
}
