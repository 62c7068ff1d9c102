package io.acceltriage.ingest.chat;

/** Who said something: the platform ("slack", "teams") and the id the policy's approvers list names them by. */
public record ChatUser(String platform, String id, String name) {

    /** How the audit log names the person: "slack:U0123". */
    public String actor() {
        return platform + ":" + id;
    }
}
