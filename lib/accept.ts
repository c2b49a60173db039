/*
 * Proactive negotiation by the Accept header (RFC 9110 §12.5.1): which of the media types a
 * route can answer in the client prefers.
 */

interface MediaRange {
    type: string;
    subtype: string;
    quality: number;
}

const token = /^[\w!#$%&'*+.^`|~-]+$/;
// RFC 9110 §12.4.2: 0 to 1 with at most three decimals.
const qvalue = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** `text/csv;q=0.5` → its type, subtype and quality; undefined for what is no media range. */
function mediaRange(text: string): MediaRange | undefined {

    const [range, ...parameters] = text.split(';').map((part) => part.trim());
    const [type, subtype, ...rest] = range.toLowerCase().split('/');
    if (rest.length > 0 || !token.test(type ?? '') || !token.test(subtype ?? '') || (type === '*' && subtype !== '*')) {
        return undefined;
    }

    const weight = parameters.find((parameter) => /^q\s*=/i.test(parameter));
    const value = weight?.slice(weight.indexOf('=') + 1).trim();
    if (value !== undefined && !qvalue.test(value)) {
        return undefined;
    }

    return { type, subtype, quality: value === undefined ? 1 : Number(value) };
}

/** How closely a range names a media type: 2 exactly, 1 by its type (`text/*`), 0 as the range of every type; -1 not at all. */
function specificity(range: MediaRange, type: string, subtype: string): number {

    if (range.type === '*') {
        return 0;
    }

    if (range.type !== type) {
        return -1;
    }

    return range.subtype === '*' ? 1 : range.subtype === subtype ? 2 : -1;
}

/**
 * The one of `offered` (media types without parameters, the default first) that `accept` prefers: the highest
 * quality its most specific matching range gives, then the more specific range (`text/csv` beside the range of
 * every type is CSV), then the order of `offered`. `offered[0]` when there is no Accept header or no valid range in it, as when a client
 * states no preference; undefined when every offered type is refused (not named, or with `q=0`).
 */
export function preferredMediaType(accept: string | undefined, offered: readonly string[]): string | undefined {

    const ranges = (accept ?? '').split(',').map((part) => part.trim()).filter((part) => part !== '').flatMap((part) => mediaRange(part) ?? []);
    if (ranges.length === 0) {
        return offered[0];
    }

    let best: { mediaType: string; quality: number; specificity: number } | undefined;
    for (const mediaType of offered) {
        const [type, subtype] = mediaType.toLowerCase().split('/');
        const matching = ranges.map((range) => ({ range, specificity: specificity(range, type, subtype) })).filter((match) => match.specificity >= 0);
        if (matching.length === 0) {
            continue;
        }

        const closest = Math.max(...matching.map((match) => match.specificity));
        const quality = matching.find((match) => match.specificity === closest)!.range.quality;
        if (quality > 0 && (!best || quality > best.quality || (quality === best.quality && closest > best.specificity))) {
            best = { mediaType, quality, specificity: closest };
        }
    }

    return best?.mediaType;
}
