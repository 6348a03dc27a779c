// Validates Kubernetes objects against the schemas of the kubernetes-models packages: the core
// kinds (`kubernetes-models`) and KEDA's (`@kubernetes-models/keda`). They are ES modules only,
// which jest's CommonJS runtime cannot load, so manifests.spec.ts runs this file with node.
//
// Reads a JSON array of objects on standard input; writes a JSON array of the same length: per
// object `null` (valid), `"no model"` (neither package has its kind) or the list of its errors.
const PACKAGES = { 'keda.sh': '@kubernetes-models/keda' };

async function modelOf({ apiVersion, kind }) {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  try {
    const module = await import(`${PACKAGES[group] ?? 'kubernetes-models'}/${apiVersion}/${kind}`);
    return module[kind];
  } catch {
    return undefined;
  }
}

async function problemsOf(object) {
  const Model = await modelOf(object);
  if (!Model) return 'no model';
  try {
    new Model(object).validate();
    return null;
  } catch (error) {
    return (error.errors ?? [{ instancePath: '', message: error.message }]).map((issue) => `${issue.instancePath || '/'} ${issue.message}`);
  }
}

let input = '';
for await (const chunk of process.stdin) input += chunk;
const objects = JSON.parse(input);
process.stdout.write(JSON.stringify(await Promise.all(objects.map(problemsOf))));
