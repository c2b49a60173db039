import { resources, type ResourceDeclaration } from '../../models/resources';
import { csvRenderer } from './csv';
import { gedcomRenderer } from './gedcom';
import { htmlRenderer } from './html';
import { pdfRenderer } from './pdf';
import type { Renderer } from './types';

/** Every export format by its `format=` name. JSON is no export: the records plugin answers it itself. */
export const renderers: Readonly<Record<string, Renderer>> = {
    csv: csvRenderer,
    html: htmlRenderer,
    pdf: pdfRenderer,
    gedcom: gedcomRenderer
};

/** The export formats that can represent this resource. */
export function exportFormatsOf(resource: ResourceDeclaration): string[] {

    return Object.keys(renderers).filter((format) => renderers[format].accepts(resource));
}

/** The media type an export format is sent as, without its parameters. */
export const mediaTypeOf = (format: string): string => renderers[format].contentType.split(';')[0];

/** The names of the resources a format can represent, in declaration order (`trees, persons, events` for GEDCOM). */
export function resourcesOf(format: string): string[] {

    return Object.values(resources).filter((resource) => renderers[format].accepts(resource)).map((resource) => resource.name);
}
