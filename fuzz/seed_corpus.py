#!/usr/bin/env python3
"""Seeds the corpus of one fuzz target (scripts/fuzz runs it before the target).

Usage: fuzz/seed_corpus.py ROOT TARGET CORPUS_DIR

Each seed is written under its SHA-1, so seeding again adds only what is new.
The seeds: fuzz/seeds/TARGET/*, then what the repository already holds of that
input (scenario clusters and configurations, examples, recorded API replies of
tests/kube_fixtures/ and ../shared/kube-fixtures/). Prints how many it added.
"""
import glob
import hashlib
import json
import os
import sys

import yaml

root, target, corpus = sys.argv[1:]
added = 0

# The webhook endpoint of each kind (live/admission_review.cc WebhookEndpoints).
ENDPOINTS = {
    'Job': ['/jobs/validate', '/jobs/mutate'],
    'Queue': ['/queues/validate', '/queues/mutate'],
    'PodGroup': ['/podgroups/validate', '/podgroups/mutate'],
    'Pod': ['/pods/validate'],
    'JobFlow': ['/jobflows/validate'],
    'JobTemplate': ['/jobtemplates/validate'],
    'HyperNode': ['/hypernodes/validate'],
}


def put(text):
    global added
    data = text.encode() if isinstance(text, str) else text
    path = os.path.join(corpus, hashlib.sha1(data).hexdigest())
    if not os.path.exists(path):
        with open(path, 'wb') as f:
            f.write(data)
        added += 1


def files(pattern):
    return sorted(glob.glob(os.path.join(root, pattern), recursive=True))


def scenarios():
    for f in files('tests/scenarios/**/*.yaml'):
        try:
            yield yaml.safe_load(open(f))
        except Exception:
            continue


def fixtures():
    for f in files('tests/kube_fixtures/*.json') + files('../shared/kube-fixtures/*.json'):
        try:
            fx = json.load(open(f))
        except Exception:
            continue
        if isinstance(fx, dict):
            yield fx


def fixture_objects():
    """Every object of a recorded request or reply body, list items included."""
    for fx in fixtures():
        for part in ('request', 'response'):
            body = (fx.get(part) or {}).get('body')
            if not isinstance(body, dict):
                continue
            items = body.get('items') if isinstance(body.get('items'), list) else []
            for obj in [body] + items:
                if isinstance(obj, dict) and obj.get('kind'):
                    yield obj


def manifest_objects():
    """Every document of the scenarios' clusters and of the examples."""
    texts = [d['cluster'] for d in scenarios() if isinstance(d, dict) and isinstance(d.get('cluster'), str)]
    texts += [open(f).read() for f in files('examples/**/*.yaml')]
    for text in texts:
        try:
            for doc in yaml.safe_load_all(text):
                if isinstance(doc, dict) and doc.get('kind'):
                    yield doc
        except Exception:
            continue


def seed_admission_review():
    # At most PER_KIND objects of each kind (the kube fixtures' first, then the
    # scenarios'): thousands of near-copies would spend the smoke's seconds
    # replaying seeds instead of mutating them.
    PER_KIND = 12
    seen = 0
    taken = {}
    for obj in list(fixture_objects()) + list(manifest_objects()):
        kind = obj.get('kind')
        if kind not in ENDPOINTS or taken.get(kind, 0) >= PER_KIND:
            continue
        taken[kind] = taken.get(kind, 0) + 1
        for path in ENDPOINTS[kind]:
            for op in ('CREATE', 'UPDATE'):
                request = {'uid': 'u-%d' % seen, 'operation': op, 'object': obj}
                if op == 'UPDATE':
                    request['oldObject'] = obj
                ns = (obj.get('metadata') or {}).get('namespace')
                if ns:
                    request['namespace'] = ns
                review = {'apiVersion': 'admission.k8s.io/v1', 'kind': 'AdmissionReview', 'request': request}
                put(path + '\n' + json.dumps(review, default=str))
                seen += 1


def seed_hypernode():
    for d in scenarios():
        if isinstance(d, dict) and isinstance(d.get('cluster'), str) and 'HyperNode' in d['cluster']:
            put(d['cluster'])
    for f in files('examples/**/*.yaml'):
        text = open(f).read()
        if 'kind: HyperNode' in text:
            put(text)


def seed_agent_config():
    for f in files('deploy/*.yaml'):  # the DaemonSet's ConfigMap
        try:
            docs = list(yaml.safe_load_all(open(f)))
        except Exception:
            continue
        for doc in docs:
            if isinstance(doc, dict) and doc.get('kind') == 'ConfigMap':
                for key, value in (doc.get('data') or {}).items():
                    if key.startswith('agent') and isinstance(value, str):
                        put(value)
    for f in files('examples/**/*.yaml') + files('tests/scenarios/**/*.yaml'):
        try:
            doc = yaml.safe_load(open(f))
        except Exception:
            continue
        colocation = doc.get('colocation') if isinstance(doc, dict) else None
        if isinstance(colocation, dict) and isinstance(colocation.get('agent'), dict):
            put(yaml.safe_dump(colocation['agent']))


def seed_list_body():
    for fx in fixtures():
        body = (fx.get('response') or {}).get('body')
        if isinstance(body, dict):
            put(json.dumps(body, indent=1))


def seed_manifest():
    for d in scenarios():
        if isinstance(d, dict) and isinstance(d.get('cluster'), str):
            put(d['cluster'])
    for obj in fixture_objects():
        put(json.dumps(obj, indent=1))
    for f in files('examples/**/*.yaml'):
        put(open(f, 'rb').read())


def seed_watch_line():
    for fx in fixtures():
        lines = (fx.get('response') or {}).get('body_lines')
        for line in lines if isinstance(lines, list) else []:
            if isinstance(line, str):
                put(line)


def seed_scheduler_config():
    for d in scenarios():
        if isinstance(d, dict) and isinstance(d.get('conf'), str):
            put(d['conf'])
    for f in files('examples/**/*.conf'):
        put(open(f, 'rb').read())


for f in files(os.path.join('fuzz/seeds', target, '*')):
    put(open(f, 'rb').read())
seeders = {
    'admission_review': seed_admission_review,
    'hypernode': seed_hypernode,
    'agent_config': seed_agent_config,
    'list_body': seed_list_body,
    'manifest': seed_manifest,
    'watch_line': seed_watch_line,
    'scheduler_config': seed_scheduler_config,
}
if target in seeders:
    seeders[target]()
print('%s: %d new seeds' % (target, added))
