// The data module's place in the function bundle's template (bundle-function.ts): each build's data is put here.
export default globalThis.__pepeCatalogueData__;
