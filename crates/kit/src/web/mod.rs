//! Web pages: fetching one as a browser would, reading its links, metadata and JSON-LD, the
//! rule sets that grade it (accessibility, technologies, carbon) and the nesting guard every
//! HTML reader applies first.

pub mod a11y_rules;
pub mod carbon_model;
pub mod html_depth;
pub mod linked_data;
pub mod page;
pub mod page_links;
pub mod site_home;
pub mod tech_rules;
