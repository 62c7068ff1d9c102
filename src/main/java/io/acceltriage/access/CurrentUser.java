package io.acceltriage.access;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Named;

/**
 * Who made the request being served, set by {@link AccessFilter}. Pages show it ({@code inject:who})
 * and pass its name to approvals, so a decision names the person who took it.
 */
@RequestScoped
@Named("who")
public class CurrentUser {

    private Principal principal;

    void set(Principal principal) {
        this.principal = principal;
    }

    /** Null only on exempt routes, which never ask. */
    public Principal principal() {
        return principal;
    }

    public String getName() {
        return principal == null ? "" : principal.name();
    }

    public String getRole() {
        return principal == null ? "" : principal.role().wireName();
    }

    public boolean isSignedIn() {
        return principal != null;
    }

    public boolean may(Role role) {
        return principal != null && principal.role().includes(role);
    }

    /** For templates: whether the approve, reject and reset forms are worth showing. */
    public boolean isApprover() {
        return may(Role.APPROVER);
    }
}
