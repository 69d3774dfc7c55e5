// import-ttk's cell text, shared by its files (campaign/ttk_parse.cpp defines it; ttk_case.cpp
// builds cases from rows, ttk_import.cpp reads files of rows). Internal to aclnn::campaign.
#pragma once

#include <map>
#include <string>

namespace aclnn_conform::ttk_detail {

// A cell without leading and trailing white space.
std::string trim(std::string s);
// A row's cell by column name, trimmed ("" if the row has no such column).
std::string text_of(const std::map<std::string, std::string> &row, const std::string &name);

}  // namespace aclnn_conform::ttk_detail
