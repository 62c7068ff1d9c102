package io.acceltriage.action;

import java.util.Optional;

/** One thing that must hold just before an action runs. Named, so the record says which one failed. */
interface Precondition {

    String name();

    /** Empty when it holds; otherwise why not, in words an operator acts on. */
    Optional<String> unmet(Mitigation.Target target);
}
