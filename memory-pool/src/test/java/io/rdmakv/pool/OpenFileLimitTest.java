package io.rdmakv.pool;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OpenFileLimitTest
{
    @Test
    void shouldRaiseTheSoftLimitToTheHardOne()
    {
        final OpenFileLimit before = OpenFileLimit.current();
        assertTrue(before.soft() > 0 && before.soft() <= before.hard(), before.toString());
        final OpenFileLimit after = OpenFileLimit.raiseSoftToHard();
        assertEquals(before.hard(), after.soft());
        assertEquals(after, OpenFileLimit.current());
    }

    @Test
    void shouldNameTheFixWhenTheLimitIsTooLow()
    {
        final OpenFileLimit limit = new OpenFileLimit(20_000, 20_000);
        final String low = limit.describe(new OpenFileLimit(1024, 20_000), 50_000, "settings");
        assertTrue(low.contains("raised from 1024") && low.contains("at least 50000") &&
            low.contains("LimitNOFILE=50000"), low);
        assertFalse(limit.covers(50_000));
        final String fine = limit.describe(limit, 4352, "settings");
        assertFalse(fine.contains("TOO LOW") || fine.contains("raised"), fine);
    }
}
