package io.acceltriage.chat;

/**
 * Who said something: the platform ("slack", "teams") and the id the policy's approvers list names
 * them by. The audit log and {@code Approvals} name people by that id alone, as the policy does.
 */
public record ChatUser(String platform, String id, String name) {

    /** Where a message came from, for logs and Alertmanager's createdBy: "slack:U0123". */
    public String actor() {
        return platform + ":" + id;
    }
}
