package io.acceltriage.web;

import io.acceltriage.incident.IncidentState;
import io.quarkus.qute.TemplateGlobal;
import java.util.Arrays;
import java.util.List;

/** Choices the filter forms offer, taken from the types so a new state shows up by itself. */
@TemplateGlobal
class PageGlobals {

    static final List<String> incidentStates = Arrays.stream(IncidentState.values()).map(s -> s.name().toLowerCase()).toList();

    static final List<String> families = List.of("device", "infrastructure", "application", "none");
}
