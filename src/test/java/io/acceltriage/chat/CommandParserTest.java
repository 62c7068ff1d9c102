package io.acceltriage.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.incident.Subject;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CommandParserTest {

    @Test
    void investigateNamesAPodANodeOrAWorkloadAsTheCorrelatorWould() {
        assertEquals(new Command.Investigate(Subject.pod("serve", "vllm-llama-0")), CommandParser.parse("investigate pod serve/vllm-llama-0"));
        assertEquals(new Command.Investigate(Subject.node("gpu-h100-01")), CommandParser.parse("  Investigate   node gpu-h100-01 "));
        assertEquals(new Command.Investigate(new Subject(Subject.Kind.WORKLOAD, "serve", "deployment/vllm-llama")),
                CommandParser.parse("investigate workload serve/Deployment/vllm-llama"));
    }

    @Test
    void malformedNamesAreRefusedWithTheirShape() {
        Command c = CommandParser.parse("investigate pod vllm-llama-0");
        assertTrue(((Command.Unknown) c).problem().contains("NAMESPACE/NAME"), c.toString());
        assertInstanceOf(Command.Unknown.class, CommandParser.parse("investigate node GPU_01;rm"));
        assertInstanceOf(Command.Unknown.class, CommandParser.parse("investigate workload serve/vllm"));
    }

    @Test
    void statusWhyApproveRejectAndReset() {
        assertEquals(new Command.IncidentStatus("inc-42"), CommandParser.parse("status incident inc-42"));
        assertEquals(new Command.NodeStatus("gpu-a100-03"), CommandParser.parse("status node gpu-a100-03"));
        assertEquals(new Command.Why("act-1a2b"), CommandParser.parse("why act-1a2b"));
        assertEquals(new Command.Approve("act-1a2b"), CommandParser.parse("approve act-1a2b"));
        assertEquals(new Command.Reject("act-1a2b", "the job is finishing anyway"),
                CommandParser.parse("reject act-1a2b the job is finishing anyway"));
        assertEquals(new Command.Reject("act-1a2b", null), CommandParser.parse("reject act-1a2b"));
        assertEquals(new Command.ResetBreaker(), CommandParser.parse("reset breaker"));
        assertEquals(new Command.Help(), CommandParser.parse(""));
        assertInstanceOf(Command.Unknown.class, CommandParser.parse("approve"));
        assertInstanceOf(Command.Unknown.class, CommandParser.parse("approve act-1 act-2"));
    }

    @Test
    void silenceTakesMatchersADurationAndAComment() {
        assertEquals(new Command.Silence(Map.of("alertname", "GpuXidError", "node", "gpu-h100-03"), Duration.ofHours(2),
                "replacing the board"), CommandParser.parse("silence GpuXidError node=gpu-h100-03 for 2h replacing the board"));
        assertEquals(new Command.Silence(Map.of("alertname", "GpuHot"), Duration.ofMinutes(90), null),
                CommandParser.parse("silence GpuHot for 1h30m"));
        assertInstanceOf(Command.Unknown.class, CommandParser.parse("silence GpuHot for ever"));
        assertInstanceOf(Command.Unknown.class, CommandParser.parse("silence GpuHot for 8d"));
        assertInstanceOf(Command.Unknown.class, CommandParser.parse("silence GpuHot node:x for 1h"));
        assertInstanceOf(Command.Unknown.class, CommandParser.parse("silence GpuHot 2h"));
    }

    @Test
    void aFreeFormQuestionIsAQuestionButNeverACommandOfOurs() {
        assertEquals(new Command.Question("why was gpu-h100-03 cordoned?"), CommandParser.parse(" why was gpu-h100-03 cordoned? "));
        assertEquals(new Command.Question("what is wrong with incident inc-12"), CommandParser.parse("what is wrong with incident inc-12"));
        assertEquals(new Command.Question("gpu-h100-03 looks odd, anything known?"), CommandParser.parse("gpu-h100-03 looks odd, anything known?"));
        assertEquals(new Command.Why("act-1a2b"), CommandParser.parse("why act-1a2b"));
        assertInstanceOf(Command.Unknown.class, CommandParser.parse("approve act-1a2b?"), "an action verb with a ? acts on nothing");
        assertInstanceOf(Command.Unknown.class, CommandParser.parse("why"));
        assertInstanceOf(Command.Unknown.class, CommandParser.parse("what " + "x".repeat(CommandParser.MAX_QUESTION)));
    }

    @Test
    void anUnknownVerbSaysWhichOne() {
        assertTrue(((Command.Unknown) CommandParser.parse("reboot node gpu-1")).problem().contains("reboot"));
    }
}
