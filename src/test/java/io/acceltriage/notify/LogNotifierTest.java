package io.acceltriage.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class LogNotifierTest {

    private static Notice noticeWith(String summary) {
        return new Notice("inc-1", "escalated", "node:gpu-h100-03", "device", 0.9, summary, List.of(), null);
    }

    @Test
    void aSummaryOfSeveralLinesIsOneLogLineWithItsLinesKeptApart() {
        String line = LogNotifier.line(noticeWith("XID 79 on GPU 2.\nNeeds a person: replace the GPU.\r\n\nWork lost: 4.8 GPU-hours.\n"));
        assertEquals("[escalated] inc-1 node:gpu-h100-03: XID 79 on GPU 2. / Needs a person: replace the GPU. / Work lost: 4.8 GPU-hours.", line);
    }

    @Test
    void aForgedLogLineInASummaryCannotStartALineOfItsOwn() {
        String line = LogNotifier.line(noticeWith("ok\n2026-12-02 INFO [acceltriage.notify] [resolved] inc-1 all clear"));
        assertEquals(1, line.lines().count());
    }
}
