package io.acceltriage.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.diagnosis.Diagnosis;
import io.acceltriage.diagnosis.Family;
import io.acceltriage.diagnosis.Finding;
import io.acceltriage.evidence.Evidence;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.Facts;
import io.acceltriage.evidence.Gap;
import io.acceltriage.evidence.Source;
import io.acceltriage.incident.Subject;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import io.acceltriage.policy.Proposal;
import io.acceltriage.policy.Verdict;
import io.acceltriage.store.Json;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The document triage writes is the one the pages, messages and queries read: one schema, checked here. */
class StoredAssessmentTest {

    private static Assessment xid79() {
        Subject node = new Subject(Subject.Kind.NODE, null, "gpu-h100-03");
        List<Evidence> items = List.of(
                new Evidence("E1", Source.CLUSTER, "Ready=True", new Facts.NodeCondition("gpu-h100-03", "Ready", "True", "KubeletReady", "ok")),
                new Evidence("E2", Source.CLUSTER, "GPU 2 XID 79", new Facts.NodeCondition("gpu-h100-03", "SysLogsXIDError", "True", "Xid", "79")));
        EvidenceBundle bundle = new EvidenceBundle(node, Instant.parse("2026-11-30T10:00:00Z"), "gpu-h100-03", "h100-train", false, items,
                List.of(), List.of(), List.of(new Gap(Source.LOGS, "no pods on the node")), List.of("cluster"));
        Diagnosis d = new Diagnosis(Family.DEVICE, "GPU fell off the bus", 0.9, List.of("E2"),
                List.of(new Finding(Family.DEVICE, 0.9, "XID 79", List.of("E2"), "xid", false, false, false, false)), false, List.of("a note"));
        Proposal cordon = new Proposal(ActionKind.CORDON_NODE, "gpu-h100-03", "fence it", List.of("E2"), "rules");
        Verdict allowed = new Verdict(Decision.ALLOW, "actions.cordon-node", List.of("within the caps"), false);
        return new Assessment("rules", node, List.of("GpuXidError"), bundle, d, List.of(new Judgement(cordon, allowed)),
                List.of("a person must reset the GPU"), "the summary", null);
    }

    @Test
    void whatTriageWritesReadsBackTypedWithEveryFieldThePagesShow() {
        StoredAssessment s = StoredAssessment.read(Json.write(xid79()));
        assertEquals("rules", s.mode());
        assertEquals("the summary", s.summary());
        assertEquals(List.of("a person must reset the GPU"), s.escalationReasons());
        assertEquals(2, s.evidence().items().size());
        assertEquals("E2", s.evidence().items().get(1).id());
        assertEquals("79", s.evidence().items().get(1).fact().path("message").asText(), "a fact keeps its own fields");
        assertEquals("no pods on the node", s.evidence().gaps().get(0).reason());
        assertEquals(0.9, s.diagnosis().confidence());
        assertEquals("XID 79", s.diagnosis().findings().get(0).cause());
        assertEquals(List.of("a note"), s.diagnosis().notes());
        StoredAssessment.Judged j = s.judgements().get(0);
        assertEquals("cordon-node", j.proposal().kind());
        assertEquals("gpu-h100-03", j.proposal().target());
        assertEquals("actions.cordon-node", j.verdict().rule());
        assertEquals(List.of("within the caps"), j.verdict().reasons());
        assertTrue(j.verdict().decision().equalsIgnoreCase("allow"), j.verdict().decision());
    }

    @Test
    void citedEvidenceIsWhatTheDiagnosisRestsOnAndNothingElse() {
        StoredAssessment s = StoredAssessment.read(Json.write(xid79()));
        assertEquals(List.of("E2"), s.citedEvidence().stream().map(StoredAssessment.Item::id).toList());
        assertTrue(s.cites("E2"));
        assertFalse(s.cites("E1"));
    }

    @Test
    void aDocumentWithoutADiagnosisReadsWithEmptyListsNotNulls() {
        StoredAssessment s = StoredAssessment.read("{\"mode\":\"rules\",\"future\":{\"field\":1}}");
        assertNull(s.diagnosis());
        assertTrue(s.citedEvidence().isEmpty());
        assertTrue(s.judgements().isEmpty() && s.evidence().items().isEmpty() && s.escalationReasons().isEmpty());
    }
}
