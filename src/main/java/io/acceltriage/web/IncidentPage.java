package io.acceltriage.web;

import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.ActionStatus;
import io.acceltriage.agent.StoredAssessment;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditRecord;
import io.acceltriage.incident.StoredAlert;
import io.acceltriage.store.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One incident laid out for reading, in the order a responder asks: what fired, what was seen, what
 * it is, what the model was asked, what was proposed and what policy said, who approved, what was
 * done and whether it worked; then the whole audited timeline.
 */
record IncidentPage(IncidentView incident, String opened, String openedAgo, String confidence, List<AlertRow> alerts,
        List<EvidenceRow> evidence, List<String> gaps, DiagnosisBox diagnosis, List<AuditRow> modelCalls, List<JudgementRow> judgements,
        List<ActionRow> actions, List<AuditRow> approvals, List<AuditRow> verifications, List<AuditRow> timeline,
        List<String> escalations, List<String> workLost) {

    record AlertRow(String name, String status, String startsAt, String received, String labels, String description) {}

    record EvidenceRow(String id, String source, String summary, List<PageText.Field> values, boolean cited) {}

    record DiagnosisBox(String family, String cause, String confidence, List<String> evidenceIds, List<String> findings,
            List<String> notes) {}

    record JudgementRow(String kind, String target, String decision, String rule, String reasons, String proposedBy,
            String reason) {}

    record ActionRow(String id, String kind, String target, String decision, String status, boolean pending, boolean dryRun,
            String detail, String updated, String updatedAgo) {

        /** Carried out (or tried): what the incident page lists under "what was done". */
        public boolean done() {
            return List.of("succeeded", "failed", "undone", "dry_run", "running").contains(status);
        }
    }

    record AuditRow(long seq, String at, String ago, String kind, String actor, List<PageText.Field> fields) {}

    static IncidentPage of(IncidentView v) {
        return of(v, java.time.Instant.now());
    }

    static IncidentPage of(IncidentView v, java.time.Instant now) {
        List<AlertRow> alerts = new ArrayList<>();
        for (StoredAlert a : v.alerts() == null ? List.<StoredAlert>of() : v.alerts()) {
            Map<String, String> labels = new TreeMap<>(a.alert().labels());
            labels.remove("alertname");
            StringBuilder l = new StringBuilder();
            labels.forEach((k, val) -> l.append(l.isEmpty() ? "" : "  ").append(k).append('=').append(val));
            String description = a.alert().annotations().getOrDefault("summary", a.alert().annotations().getOrDefault("description", ""));
            alerts.add(new AlertRow(a.alert().labels().getOrDefault("alertname", "(unnamed)"), a.alert().status().name().toLowerCase(),
                    PageText.time(a.alert().startsAt()), PageText.time(a.receivedAt()), l.toString(), description));
        }
        StoredAssessment assessment = v.assessment() == null ? null : Json.MAPPER.convertValue(v.assessment(), StoredAssessment.class);
        List<EvidenceRow> evidence = new ArrayList<>();
        List<String> gaps = new ArrayList<>();
        DiagnosisBox diagnosis = null;
        List<JudgementRow> judgements = new ArrayList<>();
        if (assessment != null) {
            for (StoredAssessment.Item e : assessment.evidence().items()) {
                List<PageText.Field> values = PageText.fields(e.fact()).stream()
                        .filter(f -> !f.value().isEmpty() && !f.name().equals("type")).toList();
                evidence.add(new EvidenceRow(blank(e.id()), blank(e.source()).toLowerCase(), blank(e.summary()), values,
                        assessment.cites(e.id())));
            }
            for (StoredAssessment.Missing g : assessment.evidence().gaps()) {
                gaps.add(blank(g.source()).toLowerCase() + ": " + blank(g.reason()));
            }
            StoredAssessment.Findings d = assessment.diagnosis();
            if (d != null) {
                List<String> findings = new ArrayList<>();
                for (StoredAssessment.Finding f : d.findings()) {
                    findings.add(blank(f.family()).toLowerCase() + " · weight " + String.valueOf(f.weight()) + " · "
                            + blank(f.cause()) + " [" + String.join(", ", f.evidenceIds()) + "]");
                }
                diagnosis = new DiagnosisBox(blank(d.family()).toLowerCase(), blank(d.cause()),
                        d.confidence() != null ? PageText.percent(d.confidence()) : "–", d.evidenceIds(), findings, d.notes());
            }
            for (StoredAssessment.Judged j : assessment.judgements()) {
                StoredAssessment.Proposed p = j.proposal() == null ? new StoredAssessment.Proposed(null, null, null, null) : j.proposal();
                StoredAssessment.Ruled verdict = j.verdict() == null ? new StoredAssessment.Ruled(null, null, null) : j.verdict();
                judgements.add(new JudgementRow(blank(p.kind()), blank(p.target()), blank(verdict.decision()), blank(verdict.rule()),
                        String.join("; ", verdict.reasons()), blank(p.proposedBy()), blank(p.reason())));
            }
        }
        List<ActionRow> actions = new ArrayList<>();
        for (ActionRecord a : v.actions() == null ? List.<ActionRecord>of() : v.actions()) {
            actions.add(new ActionRow(a.id(), a.kind().wireName(), a.target(), a.decision().wireName(), a.status().name().toLowerCase(),
                    a.status() == ActionStatus.AWAITING_APPROVAL, a.dryRun(), a.detail() == null ? "" : a.detail(),
                    PageText.time(a.updatedAt()), PageText.ago(a.updatedAt(), now)));
        }
        List<AuditRow> timeline = new ArrayList<>();
        List<AuditRow> modelCalls = new ArrayList<>();
        List<AuditRow> approvals = new ArrayList<>();
        List<AuditRow> verifications = new ArrayList<>();
        for (AuditRecord r : v.timeline() == null ? List.<AuditRecord>of() : v.timeline()) {
            AuditRow row = new AuditRow(r.seq(), PageText.time(r.at()), PageText.ago(r.at(), now), r.kind().wireName(), r.actor(),
                    PageText.fields(r.payload()));
            timeline.add(row);
            if (r.kind() == AuditKind.MODEL_CALL) modelCalls.add(row);
            if (r.kind() == AuditKind.APPROVAL) approvals.add(row);
            if (r.kind() == AuditKind.VERIFICATION) verifications.add(row);
        }
        return new IncidentPage(v, PageText.time(v.openedAt()), PageText.ago(v.openedAt(), now), PageText.percent(v.confidence()),
                alerts, evidence, gaps, diagnosis, modelCalls, judgements, actions, approvals, verifications, timeline,
                assessment == null ? List.of() : assessment.escalationReasons(),
                assessment == null ? List.of() : assessment.workLost().stream().map(io.acceltriage.agent.WorkLost::line).toList());
    }

    private static String blank(String s) {
        return s == null ? "" : s;
    }

    public boolean hasPending() {
        return actions.stream().anyMatch(ActionRow::pending);
    }

    /** "What was done": the actions carried out or tried, newest state first as stored. */
    public List<ActionRow> done() {
        return actions.stream().filter(ActionRow::done).toList();
    }

    /** "What you must do": each pending decision, then each reason the incident needs a person. */
    public List<String> mustDo() {
        List<String> out = new ArrayList<>();
        actions.stream().filter(ActionRow::pending).forEach(a -> out.add("Approve or reject " + a.kind() + " " + a.target()));
        out.addAll(escalations);
        return out;
    }

    /** The summary as paragraphs, one per line the summary writer wrote. */
    public List<String> summaryLines() {
        String s = incident.summary();
        return s == null || s.isBlank() ? List.of() : java.util.Arrays.stream(s.split("\n")).filter(l -> !l.isBlank()).toList();
    }

    /** The evidence the diagnosis rests on, shown first. */
    public List<EvidenceRow> citedEvidence() {
        return evidence.stream().filter(EvidenceRow::cited).toList();
    }

    /** Everything else that was looked at, folded away. */
    public List<EvidenceRow> otherEvidence() {
        return evidence.stream().filter(e -> !e.cited()).toList();
    }
}
