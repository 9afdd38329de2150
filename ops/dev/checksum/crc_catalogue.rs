//! The CRC catalogue: every parametrised CRC of Greg Cook's "Catalogue of parametrised CRC
//! algorithms" (CRC RevEng), by its name there and its aliases, in lower case. The parameters
//! (width, polynomial, initial value, reflection, final XOR) and each one's check value, the CRC
//! of the ASCII string "123456789", come from the `crc-catalog` crate, which transcribes that
//! catalogue; the aliases are the catalogue's too. A test computes every check value.

use crc::{Algorithm, Crc, Table};

/// One catalogued CRC.
pub(super) struct Catalogued {
    /// The catalogue's name, in lower case (`crc-32/iso-hdlc`).
    pub name: &'static str,
    /// The other names the catalogue lists for it (`crc-32`, `pkzip`).
    pub aliases: &'static [&'static str],
    /// Its width in bits.
    pub width: u8,
    /// The CRC of "123456789", as the catalogue gives it (for the test that computes it).
    #[cfg(test)]
    pub check: u128,
    /// Computes it.
    pub run: fn(&[u8]) -> u128,
}

/// The register types the `crc` crate computes in; each CRC uses the narrowest that holds it.
trait Register: crc::Width {
    fn compute(algorithm: &'static Algorithm<Self>, data: &[u8]) -> u128;
}

macro_rules! register {
    ($($t:ty),*) => {$(
        impl Register for $t {
            fn compute(algorithm: &'static Algorithm<$t>, data: &[u8]) -> u128 {
                u128::from(Crc::<$t, Table<1>>::new(algorithm).checksum(data))
            }
        }
    )*};
}
register!(u8, u16, u32, u64, u128);

macro_rules! crc {
    ($constant:ident, $name:literal, $aliases:expr) => {
        Catalogued {
            name: $name,
            aliases: $aliases,
            width: crc::$constant.width,
            #[cfg(test)]
            check: crc::$constant.check as u128,
            run: |data| Register::compute(&crc::$constant, data),
        }
    };
}

/// Every CRC of the catalogue, in its order (by width).
pub(super) const CATALOGUE: &[Catalogued] = &[
    crc!(CRC_3_GSM, "crc-3/gsm", &[]),
    crc!(CRC_3_ROHC, "crc-3/rohc", &[]),
    crc!(CRC_4_G_704, "crc-4/g-704", &["crc-4/itu"]),
    crc!(CRC_4_INTERLAKEN, "crc-4/interlaken", &[]),
    crc!(CRC_5_EPC_C1G2, "crc-5/epc-c1g2", &["crc-5/epc"]),
    crc!(CRC_5_G_704, "crc-5/g-704", &["crc-5/itu"]),
    crc!(CRC_5_USB, "crc-5/usb", &[]),
    crc!(CRC_6_CDMA2000_A, "crc-6/cdma2000-a", &[]),
    crc!(CRC_6_CDMA2000_B, "crc-6/cdma2000-b", &[]),
    crc!(CRC_6_DARC, "crc-6/darc", &[]),
    crc!(CRC_6_G_704, "crc-6/g-704", &["crc-6/itu"]),
    crc!(CRC_6_GSM, "crc-6/gsm", &[]),
    crc!(CRC_7_MMC, "crc-7/mmc", &["crc-7"]),
    crc!(CRC_7_ROHC, "crc-7/rohc", &[]),
    crc!(CRC_7_UMTS, "crc-7/umts", &[]),
    crc!(CRC_8_AUTOSAR, "crc-8/autosar", &[]),
    crc!(CRC_8_BLUETOOTH, "crc-8/bluetooth", &[]),
    crc!(CRC_8_CDMA2000, "crc-8/cdma2000", &[]),
    crc!(CRC_8_DARC, "crc-8/darc", &[]),
    crc!(CRC_8_DVB_S2, "crc-8/dvb-s2", &[]),
    crc!(CRC_8_GSM_A, "crc-8/gsm-a", &[]),
    crc!(CRC_8_GSM_B, "crc-8/gsm-b", &[]),
    crc!(CRC_8_HITAG, "crc-8/hitag", &[]),
    crc!(CRC_8_I_432_1, "crc-8/i-432-1", &["crc-8/itu"]),
    crc!(CRC_8_I_CODE, "crc-8/i-code", &[]),
    crc!(CRC_8_LTE, "crc-8/lte", &[]),
    crc!(CRC_8_MAXIM_DOW, "crc-8/maxim-dow", &["crc-8/maxim", "dow-crc"]),
    crc!(CRC_8_MIFARE_MAD, "crc-8/mifare-mad", &[]),
    crc!(CRC_8_NRSC_5, "crc-8/nrsc-5", &[]),
    crc!(CRC_8_OPENSAFETY, "crc-8/opensafety", &[]),
    crc!(CRC_8_ROHC, "crc-8/rohc", &[]),
    crc!(CRC_8_SAE_J1850, "crc-8/sae-j1850", &[]),
    crc!(CRC_8_SMBUS, "crc-8/smbus", &["crc-8"]),
    crc!(CRC_8_TECH_3250, "crc-8/tech-3250", &["crc-8/aes", "crc-8/ebu"]),
    crc!(CRC_8_WCDMA, "crc-8/wcdma", &[]),
    crc!(CRC_10_ATM, "crc-10/atm", &["crc-10", "crc-10/i-610"]),
    crc!(CRC_10_CDMA2000, "crc-10/cdma2000", &[]),
    crc!(CRC_10_GSM, "crc-10/gsm", &[]),
    crc!(CRC_11_FLEXRAY, "crc-11/flexray", &["crc-11"]),
    crc!(CRC_11_UMTS, "crc-11/umts", &[]),
    crc!(CRC_12_CDMA2000, "crc-12/cdma2000", &[]),
    crc!(CRC_12_DECT, "crc-12/dect", &["crc-12-x"]),
    crc!(CRC_12_GSM, "crc-12/gsm", &[]),
    crc!(CRC_12_UMTS, "crc-12/umts", &["crc-12/3gpp"]),
    crc!(CRC_13_BBC, "crc-13/bbc", &[]),
    crc!(CRC_14_DARC, "crc-14/darc", &[]),
    crc!(CRC_14_GSM, "crc-14/gsm", &[]),
    crc!(CRC_15_CAN, "crc-15/can", &["crc-15"]),
    crc!(CRC_15_MPT1327, "crc-15/mpt1327", &[]),
    crc!(CRC_16_ARC, "crc-16/arc", &["arc", "crc-16/lha", "crc-ibm"]),
    crc!(CRC_16_CDMA2000, "crc-16/cdma2000", &[]),
    crc!(CRC_16_CMS, "crc-16/cms", &[]),
    crc!(CRC_16_DDS_110, "crc-16/dds-110", &[]),
    crc!(CRC_16_DECT_R, "crc-16/dect-r", &["r-crc-16"]),
    crc!(CRC_16_DECT_X, "crc-16/dect-x", &["x-crc-16"]),
    crc!(CRC_16_DNP, "crc-16/dnp", &[]),
    crc!(CRC_16_EN_13757, "crc-16/en-13757", &[]),
    crc!(CRC_16_GENIBUS, "crc-16/genibus", &["crc-16/darc", "crc-16/epc", "crc-16/epc-c1g2", "crc-16/i-code"]),
    crc!(CRC_16_GSM, "crc-16/gsm", &[]),
    crc!(CRC_16_IBM_3740, "crc-16/ibm-3740", &["crc-16/autosar", "crc-16/ccitt-false"]),
    crc!(
        CRC_16_IBM_SDLC,
        "crc-16/ibm-sdlc",
        &["crc-16/iso-hdlc", "crc-16/iso-iec-14443-3-b", "crc-16/x-25", "crc-b", "x-25"]
    ),
    crc!(CRC_16_ISO_IEC_14443_3_A, "crc-16/iso-iec-14443-3-a", &["crc-a"]),
    crc!(
        CRC_16_KERMIT,
        "crc-16/kermit",
        &["crc-16/ccitt", "crc-16/ccitt-true", "crc-16/v-41-lsb", "crc-ccitt", "kermit"]
    ),
    crc!(CRC_16_LJ1200, "crc-16/lj1200", &[]),
    crc!(CRC_16_M17, "crc-16/m17", &[]),
    crc!(CRC_16_MAXIM_DOW, "crc-16/maxim-dow", &["crc-16/maxim"]),
    crc!(CRC_16_MCRF4XX, "crc-16/mcrf4xx", &[]),
    crc!(CRC_16_MODBUS, "crc-16/modbus", &["modbus"]),
    crc!(CRC_16_NRSC_5, "crc-16/nrsc-5", &[]),
    crc!(CRC_16_OPENSAFETY_A, "crc-16/opensafety-a", &[]),
    crc!(CRC_16_OPENSAFETY_B, "crc-16/opensafety-b", &[]),
    crc!(CRC_16_PROFIBUS, "crc-16/profibus", &["crc-16/iec-61158-2"]),
    crc!(CRC_16_RIELLO, "crc-16/riello", &[]),
    crc!(CRC_16_SPI_FUJITSU, "crc-16/spi-fujitsu", &["crc-16/aug-ccitt"]),
    crc!(CRC_16_T10_DIF, "crc-16/t10-dif", &[]),
    crc!(CRC_16_TELEDISK, "crc-16/teledisk", &[]),
    crc!(CRC_16_TMS37157, "crc-16/tms37157", &[]),
    crc!(CRC_16_UMTS, "crc-16/umts", &["crc-16/buypass", "crc-16/verifone"]),
    crc!(CRC_16_USB, "crc-16/usb", &[]),
    crc!(CRC_16_XMODEM, "crc-16/xmodem", &["crc-16/acorn", "crc-16/lte", "crc-16/v-41-msb", "xmodem", "zmodem"]),
    crc!(CRC_17_CAN_FD, "crc-17/can-fd", &[]),
    crc!(CRC_21_CAN_FD, "crc-21/can-fd", &[]),
    crc!(CRC_24_BLE, "crc-24/ble", &[]),
    crc!(CRC_24_FLEXRAY_A, "crc-24/flexray-a", &[]),
    crc!(CRC_24_FLEXRAY_B, "crc-24/flexray-b", &[]),
    crc!(CRC_24_INTERLAKEN, "crc-24/interlaken", &[]),
    crc!(CRC_24_LTE_A, "crc-24/lte-a", &[]),
    crc!(CRC_24_LTE_B, "crc-24/lte-b", &[]),
    crc!(CRC_24_OPENPGP, "crc-24/openpgp", &["crc-24"]),
    crc!(CRC_24_OS_9, "crc-24/os-9", &[]),
    crc!(CRC_30_CDMA, "crc-30/cdma", &[]),
    crc!(CRC_31_PHILIPS, "crc-31/philips", &[]),
    crc!(CRC_32_AIXM, "crc-32/aixm", &["crc-32q"]),
    crc!(CRC_32_AUTOSAR, "crc-32/autosar", &[]),
    crc!(CRC_32_BASE91_D, "crc-32/base91-d", &["crc-32d"]),
    crc!(CRC_32_BZIP2, "crc-32/bzip2", &["crc-32/aal5", "crc-32/dect-b", "b-crc-32"]),
    crc!(CRC_32_CD_ROM_EDC, "crc-32/cd-rom-edc", &[]),
    crc!(CRC_32_CKSUM, "crc-32/cksum", &["cksum", "crc-32/posix"]),
    crc!(CRC_32_ISCSI, "crc-32/iscsi", &["crc-32/base91-c", "crc-32/castagnoli", "crc-32/interlaken", "crc-32c"]),
    crc!(CRC_32_ISO_HDLC, "crc-32/iso-hdlc", &["crc-32", "crc-32/adccp", "crc-32/v-42", "crc-32/xz", "pkzip"]),
    crc!(CRC_32_JAMCRC, "crc-32/jamcrc", &["jamcrc"]),
    crc!(CRC_32_MEF, "crc-32/mef", &[]),
    crc!(CRC_32_MPEG_2, "crc-32/mpeg-2", &[]),
    crc!(CRC_32_XFER, "crc-32/xfer", &["xfer"]),
    crc!(CRC_40_GSM, "crc-40/gsm", &[]),
    crc!(CRC_64_ECMA_182, "crc-64/ecma-182", &["crc-64"]),
    crc!(CRC_64_GO_ISO, "crc-64/go-iso", &[]),
    crc!(CRC_64_MS, "crc-64/ms", &[]),
    crc!(CRC_64_NVME, "crc-64/nvme", &[]),
    crc!(CRC_64_REDIS, "crc-64/redis", &[]),
    crc!(CRC_64_WE, "crc-64/we", &[]),
    crc!(CRC_64_XZ, "crc-64/xz", &["crc-64/go-ecma"]),
    crc!(CRC_82_DARC, "crc-82/darc", &[]),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The catalogue's own check values: every CRC of "123456789".
    #[test]
    fn every_crc_gives_its_catalogued_check_value() {
        assert_eq!(CATALOGUE.len(), 113);
        for c in CATALOGUE {
            assert_eq!((c.run)(b"123456789"), c.check, "{}", c.name);
        }
    }

    #[test]
    fn names_and_aliases_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for c in CATALOGUE {
            for n in std::iter::once(&c.name).chain(c.aliases) {
                assert!(seen.insert(*n), "{n} twice");
                assert_eq!(*n, n.to_lowercase());
            }
        }
    }
}
