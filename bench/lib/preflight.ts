import type { Target } from './run';

export interface Expectation {
    status: number;
    /** Returns what is wrong with the response, or undefined when it is what the run should measure. */
    check?: (body: any, headers: Headers) => string | undefined;
}

/** One request before loading a target: a benchmark of the wrong response measures nothing. */
export async function preflight(target: Target, expectation: Expectation): Promise<void> {

    const response = await fetch(target.url, { headers: target.headers, method: target.method, body: target.body });
    const body = await response.json();
    const problem = response.status !== expectation.status ?
        `status ${response.status}, expected ${expectation.status}: ${JSON.stringify(body)}` :
        expectation.check?.(body, response.headers);

    if (problem) {
        throw new Error(`Preflight of ${target.scenario} (${target.url}): ${problem}`);
    }
}
