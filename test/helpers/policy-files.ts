import Fs from 'fs';
import Path from 'path';

import { expect } from '@hapi/code';
import YAML from 'yaml';

import { PolicyError } from '../../gateway/policies/data-file';
import { loadGatewayConfig, type GatewayConfig, type GatewayParts } from '../../gateway/policies/gateway-file';
import { loadPolicies, type Policies } from '../../gateway/policies/policy-file';
import { gatewayPolicies } from '../../gateway/policy-chain';
import { apiKeyScheme, type ApiKeySchemeOptions } from '../../gateway/verify-api-key';
import { deviceTokenScheme, type DeviceTokenSchemeOptions } from '../../gateway/verify-device-token';
import { policyFiles } from '../../lib/deployment';
import { projectRoot } from '../../lib/config';
import { copyPolicies } from './server';

/** The names of the service's policy files. */
export const policyFileNames = policyFiles.map((file) => file.fileName);

/** Loads the service's policy files from `dir` (the shipped ones by default), as start-up does. */
export function loadServicePolicies(dir = Path.join(projectRoot, 'policies')): Policies {

    return loadPolicies(dir, policyFiles);
}

/** What the service's gateway.yaml may name; the schemes' verifiers are never made, so they need no services. */
export const gatewayParts: GatewayParts = {
    policies: gatewayPolicies,
    authSchemes: { 'api-key': apiKeyScheme({} as ApiKeySchemeOptions), 'device-token': deviceTokenScheme({} as DeviceTokenSchemeOptions) }
};

/** Loads a gateway.yaml as start-up does, against the policies in `policiesDir` (the shipped ones by default). */
export function loadGateway(file: string, policiesDir?: string): GatewayConfig {

    return loadGatewayConfig(file, gatewayParts, loadServicePolicies(policiesDir));
}

/** Rewrites part of one file in `dir`; fails when `from` is not there, so a test never passes on an edit that did nothing. */
export function editPolicyFile(dir: string, file: string, from: string, to: string): void {

    const path = Path.join(dir, file);
    const text = Fs.readFileSync(path, 'utf8');
    expect(text).to.include(from);
    Fs.writeFileSync(path, text.replace(from, to));
}

/** A copy of the shipped policies with part of one file rewritten (see editPolicyFile). */
export function editedPolicies(file: string, from: string, to: string): string {

    const dir = copyPolicies();
    editPolicyFile(dir, file, from, to);
    return dir;
}

/**
 * Policies (by default a copy of the shipped ones) whose minute-long rate-limit windows last a day
 * instead: a test that counts requests then never straddles a window's clock-aligned end.
 */
export function dayLongRateWindows(dir = copyPolicies()): string {

    const file = Path.join(dir, 'rate-limits.yaml');
    const text = Fs.readFileSync(file, 'utf8');
    expect(text).to.match(/window_seconds: 60\b/);
    Fs.writeFileSync(file, text.replace(/window_seconds: 60\b/g, 'window_seconds: 86400'));
    return dir;
}

/**
 * A copy of the shipped policies whose every rate limit is far beyond what a run can send,
 * so the rate-limit policy does all its work but never answers 429.
 */
export function policiesWithoutLimits(): string {

    const directory = copyPolicies();
    const file = Path.join(directory, 'rate-limits.yaml');
    const document = YAML.parse(Fs.readFileSync(file, 'utf8'));
    for (const preset of document.presets) {
        preset.per_key.limit = 1_000_000_000;
        preset.per_family.limit = 1_000_000_000;
        if (preset.per_user) {
            preset.per_user.limit = 1_000_000_000;
        }
    }

    Fs.writeFileSync(file, YAML.stringify(document));
    return directory;
}

/** A copy of the shipped policies with one file removed. */
export function policiesWithout(file: string): string {

    const dir = copyPolicies();
    Fs.rmSync(Path.join(dir, file));
    return dir;
}

/** The PolicyError loading the policies in `dir` throws; fails when they load. */
export function policyLoadError(dir: string): PolicyError {

    return expect(() => loadServicePolicies(dir)).to.throw(PolicyError);
}

/** The message of policyLoadError(dir): `<dir>/<file>: <what is wrong>`. */
export function loadError(dir: string): string {

    return policyLoadError(dir).message;
}

/** What is wrong with `file`, from loadError(dir) without its `<dir>/<file>: ` prefix; fails when another file is named. */
export function loadErrorIn(dir: string, file: string): string {

    const message = loadError(dir);
    const prefix = `${Path.join(dir, file)}: `;
    expect(message).to.startWith(prefix);
    return message.slice(prefix.length);
}
