package io.acceltriage.web;

import io.quarkus.qute.TemplateExtension;
import java.time.Instant;

/** Template helpers: {@code {at.readable}}, {@code {confidence.percent}}. */
@TemplateExtension
class PageExtensions {

    static String readable(Instant at) {
        return PageText.time(at);
    }

    static String percent(Double confidence) {
        return PageText.percent(confidence);
    }

    /** awaiting_approval reads as "awaiting approval". */
    static String spaced(String wireName) {
        return wireName.replace('_', ' ');
    }

    /** The first line of a summary: the list shows the headline, the incident page the rest. */
    static String firstLine(String text) {
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl);
    }
}
